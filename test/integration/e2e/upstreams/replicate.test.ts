import { startReplicateFake, type ReplicateFake } from '../../../support/upstreams/replicate';
import { describeUpstreamEndToEnd } from './suite';

describeUpstreamEndToEnd({
  id: 'replicate',
  startFake: startReplicateFake,
  callbacks: true,
  synchronous: false,
  async signedCallback(fake, upstreamId) {
    const body = JSON.stringify({ id: upstreamId, status: 'succeeded', output: null });
    return { headers: { 'content-type': 'application/json', ...(fake as ReplicateFake).sign(body) }, body };
  },
});
