import { startGoogleFake } from '../../../support/upstreams/google';
import { describeUpstreamEndToEnd } from './suite';

// The scenarios run on the image model (synchronous); the Veo models run once each.
describeUpstreamEndToEnd({ id: 'google', startFake: startGoogleFake, callbacks: false, synchronous: true, reportsCost: true });
