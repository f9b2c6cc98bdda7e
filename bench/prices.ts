/**
 * AWS list prices the bench prices a turn with: US East (N. Virginia), us-east-1, on-demand, first
 * tier, without free tiers, in US dollars. Looked up in December 2026; where a price could only be
 * read from a secondary page quoting the AWS one, the comment says so. Check the AWS pricing pages
 * before relying on a figure: they change (DynamoDB's on-demand prices were halved on 1 Nov 2024).
 */
export const PRICES = {
  region: 'us-east-1',
  checked: '2026-12',
  dynamodb: {
    /**
     * On-demand, per million request units, after the 1 Nov 2024 cut. Source: "Amazon DynamoDB
     * pricing — on-demand capacity" (aws.amazon.com/dynamodb/pricing/on-demand), read through
     * secondary pages quoting it after the cut ($0.625 WRU, $0.125 RRU); not read on the AWS page
     * itself here.
     */
    perMillionWru: 0.625,
    perMillionRru: 0.125,
  },
  apiGateway: {
    /**
     * WebSocket APIs: per million messages (sent or received, metered in 32 KB increments), first
     * billion. Source: "Amazon API Gateway pricing" (aws.amazon.com/api-gateway/pricing), whose text
     * on the 32 KB metering was read here; the rate itself was read from secondary pages quoting it.
     */
    perMillionWebSocketMessages: 1.0,
    /** WebSocket APIs: per million connection minutes. Same page; not verified here (the long-standing rate). */
    perMillionConnectionMinutes: 0.25,
    /** HTTP APIs: per million requests, first 300 million. Same page, via secondary pages. */
    perMillionHttpRequests: 1.0,
  },
  sqs: {
    /** FIFO queues: per million requests (each 64 KB of payload is one request). Source: "Amazon SQS pricing", via secondary pages. */
    perMillionFifoRequests: 0.5,
  },
  s3: {
    /** S3 Standard: PUT, COPY, POST, LIST per 1,000 requests, and GET and others per 1,000. "Amazon S3 pricing"; not verified here. */
    perThousandPut: 0.005,
    perThousandGet: 0.0004,
  },
  lambda: {
    /** Per million requests, either architecture. Source: "AWS Lambda pricing" (aws.amazon.com/lambda/pricing), via secondary pages. */
    perMillionRequests: 0.2,
    /** Arm (Graviton), per GB-second, first 7.5 billion GB-s a month. Same source. */
    armPerGbSecond: 0.0000133334,
  },
} as const;

/** What one turn used, in the units AWS bills. */
export interface TurnUsage {
  wru: number;
  rru: number;
  /** WebSocket messages: posts (per 32 KB), frames the hosts sent and the route answers they got. */
  webSocketMessages: number;
  connectionMinutes: number;
  httpRequests: number;
  /** SQS requests (per 64 KB of payload). */
  sqsRequests: number;
  s3Puts: number;
  s3Gets: number;
  lambdaRequests: number;
  lambdaGbSeconds: number;
}

/** A turn's cost per million turns, by service, in US dollars. */
export interface CostPerMillion {
  dynamodb: number;
  apiGateway: number;
  sqs: number;
  s3: number;
  lambda: number;
  total: number;
}

/** Prices one turn's usage, per million such turns. */
export function costPerMillion(u: TurnUsage): CostPerMillion {
  const p = PRICES;
  const dynamodb = u.wru * p.dynamodb.perMillionWru + u.rru * p.dynamodb.perMillionRru;
  const apiGateway =
    u.webSocketMessages * p.apiGateway.perMillionWebSocketMessages +
    u.connectionMinutes * p.apiGateway.perMillionConnectionMinutes +
    u.httpRequests * p.apiGateway.perMillionHttpRequests;
  const sqs = u.sqsRequests * p.sqs.perMillionFifoRequests;
  // Per thousand requests, so per million turns that is 1,000 × the per-thousand price per request.
  const s3 = (u.s3Puts * p.s3.perThousandPut + u.s3Gets * p.s3.perThousandGet) * 1_000;
  const lambda =
    u.lambdaRequests * p.lambda.perMillionRequests + u.lambdaGbSeconds * p.lambda.armPerGbSecond * 1e6;
  return { dynamodb, apiGateway, sqs, s3, lambda, total: dynamodb + apiGateway + sqs + s3 + lambda };
}
