/** Activities of the raw baseline: an admission that does nothing, and work that only waits. */
export interface BaselineActivities {
  admitNoop(): Promise<string>;
  work(ms: number): Promise<void>;
}

export const baselineActivities: BaselineActivities = {
  async admitNoop() {
    return 'admitted';
  },
  async work(ms) {
    await new Promise((resolve) => setTimeout(resolve, ms));
  },
};
