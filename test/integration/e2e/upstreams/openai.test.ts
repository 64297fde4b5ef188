import { startOpenAIFake } from '../../../support/upstreams/openai';
import { describeUpstreamEndToEnd } from './suite';

describeUpstreamEndToEnd({ id: 'openai', startFake: startOpenAIFake, callbacks: false, synchronous: true, reportsCost: true });
