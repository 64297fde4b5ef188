import { startFalFake, type FalFake } from '../../../support/upstreams/fal';
import { describeUpstreamEndToEnd } from './suite';

describeUpstreamEndToEnd({
  id: 'fal',
  // With an admin key the adapter reads each request's cost from fal's billing events.
  startFake: async () => {
    const fake = await startFalFake();
    return Object.assign(fake, { env: { ...fake.env, FAL_ADMIN_KEY: fake.adminKey } });
  },
  callbacks: true,
  synchronous: false,
  reportsCost: true,
  async signedCallback(fake, upstreamId) {
    const body = JSON.stringify({ request_id: upstreamId, gateway_request_id: upstreamId, status: 'OK', payload: {} });
    // A timestamp of its own (never the second of the fake's real webhook), as each delivery has one.
    const timestamp = Math.floor(Date.now() / 1000) - 150 - Math.floor(Math.random() * 100);
    return { headers: { 'content-type': 'application/json', ...(fake as FalFake).sign(upstreamId, body, timestamp) }, body };
  },
});
