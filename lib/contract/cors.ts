/** A method a CORS configuration may allow, as API Gateway spells it; `*` allows any. */
export type CorsMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS' | '*';

/**
 * An HTTP API's CORS configuration, in the terms of API Gateway's `CorsConfiguration`. Origins
 * are exact (`https://app.example.com`), `*`, or a scheme wildcard (`https://*`); header names
 * are matched without regard to case.
 */
export interface CorsConfig {
  allowOrigins: readonly string[];
  allowHeaders: readonly string[];
  allowMethods: readonly CorsMethod[];
  exposeHeaders?: readonly string[];
  maxAgeSeconds?: number;
  allowCredentials?: boolean;
}

/**
 * The HTTP API's CORS configuration. The CDK stack deploys it and the sandbox's gateway answers
 * preflight and adds the headers by it, so a browser host meets the same rules in both.
 */
export const HTTP_API_CORS: CorsConfig = {
  allowOrigins: ['*'],
  allowHeaders: ['content-type', 'authorization'],
  allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
  // Not a CORS-safelisted response header: without this a browser host cannot read a 429's wait.
  exposeHeaders: ['retry-after'],
};

/**
 * The AG-UI endpoint's CORS: an AG-UI client in a browser POSTs JSON with a bearer token and reads
 * the stream. The CDK stack gives the function URL this configuration (Lambda answers the preflight)
 * and the sandbox's gateway applies it to the endpoint's path.
 */
export const AGUI_CORS: CorsConfig = {
  allowOrigins: ['*'],
  allowHeaders: ['content-type', 'authorization', 'accept'],
  allowMethods: ['POST'],
  maxAgeSeconds: 3600,
};

/**
 * The file bucket's CORS rule: browsers upload with presigned PUT URLs and read files back, from any
 * origin, since the URL's signature, not the origin, is what authorises the request. The CDK stack
 * gives the bucket this rule and the sandbox's S3 answers preflight by it.
 */
export const FILE_BUCKET_CORS: CorsConfig = {
  allowOrigins: ['*'],
  allowHeaders: ['*'],
  allowMethods: ['PUT', 'GET'],
  exposeHeaders: ['ETag'],
  maxAgeSeconds: 3600,
};
