import { startRunwayFake } from '../../../support/upstreams/runway';
import { describeUpstreamEndToEnd } from './suite';

describeUpstreamEndToEnd({ id: 'runway', startFake: startRunwayFake, callbacks: false, synchronous: false, reportsCost: true });
