/** An account's destination as it is used: the secret in clear text, in memory only. */
export interface DestinationSettings {
  /** Origin of the S3 API: `https://s3.example.com`, `http://127.0.0.1:9000` where private addresses are allowed. */
  endpoint: string;
  region: string;
  bucket: string;
  /** Empty, or ending in `/`. */
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
}
