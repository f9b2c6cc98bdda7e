import type { AddressInfo } from 'node:net';
import { buildApp } from 'fauxqs';
import { loopbackOnly } from './host-check.ts';

/**
 * The largest object body the sandbox's S3 takes in one PUT: 1 GiB, held in memory. S3 takes 5 GB;
 * fauxqs alone refuses anything past 11 MiB (its server's body limit), which S3 takes.
 */
export const SANDBOX_S3_MAX_BODY_BYTES = 1024 * 1024 * 1024;

/** The parts of fauxqs's (1.9.2) stores this file relies on. */
interface FauxStores {
  sqsStore: {
    buildQueueUrl(name: string, port: string, requestHost: string, region: string): string;
    createQueue(name: string, url: string, arn: string, attributes?: Record<string, string>): unknown;
  };
  snsStore: object;
  s3Store: { createBucket(name: string): void };
}

/** A running fauxqs: SQS and S3 on one loopback port. */
export interface FauxqsServer {
  /** `http://127.0.0.1:PORT` */
  address: string;
  createQueue(name: string, attributes: Record<string, string>): { queueUrl: string; queueArn: string };
  createBucket(name: string): void;
  stop(): Promise<void>;
}

/** A class of fauxqs's, loaded by file: the package exports its stores' types, not the classes. */
async function fauxqsClass<T>(file: string, name: string): Promise<new () => T> {
  const module = (await import(new URL(file, import.meta.resolve('fauxqs')).href)) as Record<string, unknown>;
  return module[name] as new () => T;
}

/**
 * Starts fauxqs as its `startFauxqs` does, with two differences: it listens on 127.0.0.1 alone (and
 * answers loopback names only, see host-check.ts), where `startFauxqs` listens on every interface;
 * and its S3 takes bodies up to {@link SANDBOX_S3_MAX_BODY_BYTES}, where its server refuses past
 * 11 MiB. fauxqs has no option for either, so the server it builds is given its stores, and the
 * limit of its wildcard body parser (the one S3's bodies go through) is raised.
 */
export async function startFauxqsServer(region: string): Promise<FauxqsServer> {
  const stores: FauxStores = {
    sqsStore: new (await fauxqsClass<FauxStores['sqsStore']>('./sqs/sqsStore.js', 'SqsStore'))(),
    snsStore: new (await fauxqsClass<object>('./sns/snsStore.js', 'SnsStore'))(),
    s3Store: new (await fauxqsClass<FauxStores['s3Store']>('./s3/s3Store.js', 'S3Store'))(),
  };
  const app = buildApp({ logger: false, stores: stores as never });
  const parsers = Reflect.get(app, symbolOf(app, 'fastify.contentTypeParser')) as
    | { customParsers?: Map<string, { bodyLimit: number }> }
    | undefined;
  // Fastify keeps the parser of `*` under ''.
  const wildcard = parsers?.customParsers?.get('');
  if (!wildcard) throw new Error('fauxqs: its S3 body parser is no longer where the sandbox looks for it.');
  wildcard.bodyLimit = SANDBOX_S3_MAX_BODY_BYTES;
  loopbackOnly(app.server);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const host = `127.0.0.1:${port}`;
  return {
    address: `http://${host}`,
    createQueue(name, attributes) {
      const queueUrl = stores.sqsStore.buildQueueUrl(name, String(port), host, region);
      const queueArn = `arn:aws:sqs:${region}:000000000000:${name}`;
      stores.sqsStore.createQueue(name, queueUrl, queueArn, attributes);
      return { queueUrl, queueArn };
    },
    createBucket: (name) => stores.s3Store.createBucket(name),
    stop: () => app.close(),
  };
}

function symbolOf(target: object, description: string): symbol {
  const found = Object.getOwnPropertySymbols(target).find((s) => s.description === description);
  if (!found) throw new Error(`fauxqs: its server has no ${description}.`);
  return found;
}
