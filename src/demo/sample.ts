import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';

/** A sample collection served over HTTP: a manifest of manifests with three objects, one broken. */
export interface SampleCollection {
  batchManifestUrl: string;
  close(): Promise<void>;
}

const FIELDS = 'nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileName';

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function objects(): {
  name: string;
  title: string;
  files: { name: string; data: Buffer; broken?: boolean }[];
}[] {
  return [
    {
      name: 'letters',
      title: 'Letters of a naturalist',
      files: [
        { name: 'letter-1.txt', data: Buffer.from('Dear colleague, the specimens arrived safely.\n') },
        { name: 'letter-2.txt', data: Buffer.from('The river rose again this spring.\n') },
      ],
    },
    {
      name: 'survey',
      title: 'Field survey 1923',
      files: [{ name: 'survey.csv', data: Buffer.from('site,species,count\nA,heron,4\nB,egret,9\n') }],
    },
    {
      name: 'damaged',
      title: 'A deposit whose digest does not match',
      files: [
        {
          name: 'scan.txt',
          data: Buffer.from('this file changed after its digest was taken\n'),
          broken: true,
        },
      ],
    },
  ];
}

/** Starts a loopback HTTP server with the sample collection (checkm manifests and their files). */
export async function serveSampleCollection(): Promise<SampleCollection> {
  const routes = new Map<string, Buffer>();
  const server: Server = createServer((req, res) => {
    const body = routes.get((req.url ?? '').split('?')[0] ?? '');
    if (!body) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-length': body.length }).end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const batchLines: string[] = [];
  for (const object of objects()) {
    const lines = object.files.map((file) => {
      routes.set(`/${object.name}/${file.name}`, file.data);
      const digest = file.broken ? sha256(Buffer.from('the original bytes')) : sha256(file.data);
      return `${base}/${object.name}/${file.name} | sha256 | ${digest} | ${file.data.length} | ${file.name}`;
    });
    routes.set(
      `/${object.name}.checkm`,
      Buffer.from(['%checkm_0.7', `%fields | ${FIELDS}`, ...lines, ''].join('\n')),
    );
    batchLines.push(`${base}/${object.name}.checkm | ${object.title}`);
  }
  routes.set(
    '/collection.checkm',
    Buffer.from(['%checkm_0.7', '%fields | nfo:fileUrl | mrt:title', ...batchLines, ''].join('\n')),
  );
  return {
    batchManifestUrl: `${base}/collection.checkm`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
