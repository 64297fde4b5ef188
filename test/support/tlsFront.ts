import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateTestCertificates } from './httpsReceiver';

/**
 * An HTTPS front on loopback that passes every request on to an HTTP server, as a TLS-terminating proxy in front of
 * the API does in a deployment. Its certificate is signed by a throw-away CA (`caPath` for clients to trust). The
 * target is set once it is known, so the front's URL can be the API's PUBLIC_BASE_URL.
 */
export interface TlsFront {
  url: string;
  caPath: string;
  setTarget(url: string): void;
  close(): Promise<void>;
}

export async function startTlsFront(): Promise<TlsFront> {
  const certs = generateTestCertificates();
  let target: URL | null = null;
  const server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
    if (!target) {
      res.writeHead(503).end('no target yet');
      return;
    }
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-proto': 'https' } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(err));
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    caPath: certs.caPath,
    setTarget(url) {
      target = new URL(url);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
