import { Stack as CdkStack, type Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { WebSocketApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketMockIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtInAuthorizers } from '../../infra/apis.ts';
import { checkSwitchboardProps } from '../../infra/props.ts';
import {
  HTTP_ROUTES,
  WEBSOCKET_IDENTITY_SOURCES,
  WEBSOCKET_ROUTES,
  WEBSOCKET_SPECIAL_ROUTES,
  type WebSocketTokenSource,
} from '../../infra/routes.ts';
import {
  environmentOf,
  FIXTURE_AGENTS,
  idsOfType,
  type Resources,
  refOf,
  SYNTH_TIMEOUT_MS,
  synthSwitchboard,
  TEST_AUTH,
} from './template-helpers.ts';

let stack: Stack;
let template: Template;
let resources: Resources;

beforeAll(() => {
  ({ stack, template, resources } = synthSwitchboard({ keepWarnings: true }));
}, SYNTH_TIMEOUT_MS);

function apiId(protocol: 'HTTP' | 'WEBSOCKET'): string {
  const ids = idsOfType(resources, 'AWS::ApiGatewayV2::Api').filter(
    (id) => resources[id]?.Properties?.ProtocolType === protocol,
  );
  expect(ids).toHaveLength(1);
  return ids[0] ?? '';
}

function routesOf(api: string): Map<string, string> {
  const routes = new Map<string, string>();
  for (const id of idsOfType(resources, 'AWS::ApiGatewayV2::Route')) {
    const props = resources[id]?.Properties ?? {};
    if (refOf(props.ApiId) === api) routes.set(props.RouteKey as string, id);
  }
  return routes;
}

/** The function logical id an API Gateway integration invokes. */
function integrationTarget(routeId: string): string | undefined {
  const target = resources[routeId]?.Properties?.Target as { 'Fn::Join': [string, unknown[]] };
  const integration = refOf(target['Fn::Join'][1][1]);
  const uri = resources[integration ?? '']?.Properties?.IntegrationUri;
  return refOf(uri) ?? JSON.stringify(uri).match(/"(Switchboard\w+Function\w+)"/)?.[1];
}

describe('Switchboard APIs', () => {
  it('the HTTP API serves exactly the routes of HTTP_ROUTES, all on the HTTP function', () => {
    const routes = routesOf(apiId('HTTP'));
    expect([...routes.keys()].sort()).toEqual([...HTTP_ROUTES].sort());
    const targets = new Set([...routes.values()].map(integrationTarget));
    expect([...targets]).toEqual([expect.stringMatching(/^SwitchboardHttpFunction/)]);
  });

  it('the HTTP API answers CORS preflight for any origin', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'HTTP',
      CorsConfiguration: {
        AllowOrigins: ['*'],
        AllowHeaders: ['content-type', 'authorization'],
        AllowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
      },
    });
  });

  it('the WebSocket API routes on the action field, with $connect, $disconnect and $default', () => {
    const api = apiId('WEBSOCKET');
    expect(resources[api]?.Properties?.RouteSelectionExpression).toBe('$request.body.action');
    const routes = routesOf(api);
    expect([...routes.keys()].sort()).toEqual([...WEBSOCKET_SPECIAL_ROUTES, ...WEBSOCKET_ROUTES].sort());
    const targets = new Set([...routes.values()].map(integrationTarget));
    expect([...targets]).toEqual([expect.stringMatching(/^SwitchboardWebSocketFunction/)]);
  });

  it('the action routes and $default send the function body back to the caller', () => {
    const api = apiId('WEBSOCKET');
    const routes = routesOf(api);
    const answered = idsOfType(resources, 'AWS::ApiGatewayV2::RouteResponse').map((id) =>
      refOf(resources[id]?.Properties?.RouteId),
    );
    const expected = ['$default', ...WEBSOCKET_ROUTES].map((key) => routes.get(key));
    expect(answered.sort()).toEqual(expected.sort());
    for (const key of ['$default', ...WEBSOCKET_ROUTES]) {
      const route = resources[routes.get(key) ?? '']?.Properties;
      expect(route?.RouteResponseSelectionExpression).toBe('$default');
    }
  });

  it('the WebSocket API is deployed to the live stage automatically', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      ApiId: { Ref: apiId('WEBSOCKET') },
      StageName: 'live',
      AutoDeploy: true,
    });
  });

  it('the functions post to connections through the stage management endpoint', () => {
    const fn = idsOfType(resources, 'AWS::Lambda::Function').find((id) => id.startsWith('SwitchboardWorker'));
    const variables = environmentOf(resources, fn ?? '');
    const endpoint = JSON.stringify(variables.SWITCHBOARD_WS_ENDPOINT);
    expect(endpoint).toContain('https://');
    expect(endpoint).toContain('.execute-api.');
    expect(endpoint).toContain(`{"Ref":"${apiId('WEBSOCKET')}"}`);
    expect(endpoint).toMatch(/\/live"\]\]\}$/);
  });

  it('puts the JWT authoriser of the issuer and audiences on every HTTP route', () => {
    const authorizers = idsOfType(resources, 'AWS::ApiGatewayV2::Authorizer');
    const jwt = authorizers.filter((id) => resources[id]?.Properties?.AuthorizerType === 'JWT');
    expect(jwt).toHaveLength(1);
    expect(resources[jwt[0] ?? '']?.Properties).toMatchObject({
      ApiId: { Ref: apiId('HTTP') },
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: { Issuer: TEST_AUTH.issuer, Audience: TEST_AUTH.audience },
    });
    for (const route of routesOf(apiId('HTTP')).values()) {
      expect(resources[route]?.Properties).toMatchObject({
        AuthorizationType: 'JWT',
        AuthorizerId: { Ref: jwt[0] },
      });
    }
  });

  it("authorises $connect, and only $connect, with the authoriser function, behind the handshake's Sec-WebSocket-Key", () => {
    const lambda = idsOfType(resources, 'AWS::ApiGatewayV2::Authorizer').filter(
      (id) => resources[id]?.Properties?.AuthorizerType === 'REQUEST',
    );
    expect(lambda).toHaveLength(1);
    const props = resources[lambda[0] ?? '']?.Properties ?? {};
    expect(props.ApiId).toEqual({ Ref: apiId('WEBSOCKET') });
    // A named identity source that is missing is a 401 before the function runs: the token may be
    // in the subprotocol or in the query string, so by default the source is a header every
    // WebSocket handshake has, in the form AWS documents.
    expect(props.IdentitySource).toEqual(['route.request.header.Sec-WebSocket-Key']);
    expect(JSON.stringify(props.AuthorizerUri)).toMatch(/SwitchboardAuthorizerFunction/);
    const routes = routesOf(apiId('WEBSOCKET'));
    for (const [key, id] of routes) {
      const route = resources[id]?.Properties;
      if (key === '$connect')
        expect(route).toMatchObject({ AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: lambda[0] } });
      else expect(route?.AuthorizationType ?? 'NONE', key).toBe('NONE');
    }
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'apigateway.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [Match.stringLikeRegexp('^SwitchboardAuthorizerFunction'), 'Arn'] },
    });
    Annotations.fromStack(stack).hasNoWarning('*', Match.stringLikeRegexp('anonymous'));
  });

  it(
    'with allowAnonymous, has no authoriser and warns at synth that every caller is anonymous',
    () => {
      const open = synthSwitchboard({ anonymous: true, keepWarnings: true });
      Annotations.fromStack(open.stack).hasWarning('*', Match.stringLikeRegexp('anonymous'));
      const allRoutes = HTTP_ROUTES.length + WEBSOCKET_SPECIAL_ROUTES.length + WEBSOCKET_ROUTES.length;
      open.template.resourcePropertiesCountIs(
        'AWS::ApiGatewayV2::Route',
        { AuthorizationType: 'NONE' },
        allRoutes,
      );
      open.template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 0);
      // http, ws, worker, sweep and the AG-UI endpoint; no $connect authoriser.
      const functions = idsOfType(open.resources, 'AWS::Lambda::Function');
      expect(functions).toHaveLength(5);
      expect(functions.filter((id) => id.startsWith('SwitchboardAuthorizerFunction'))).toEqual([]);
      // The AG-UI function is told it serves anonymous callers; without that it would refuse to start.
      const [agui] = functions.filter((id) => id.startsWith('SwitchboardAgUiFunction'));
      expect(environmentOf(open.resources, agui ?? '')).toMatchObject({
        SWITCHBOARD_ALLOW_ANONYMOUS: 'true',
      });
      expect(environmentOf(open.resources, agui ?? '').SWITCHBOARD_AUTH_ISSUER).toBeUndefined();
    },
    SYNTH_TIMEOUT_MS,
  );
});

describe("auth.webSocketTokenSource: the $connect authoriser's identity source", () => {
  /** The identity source builtInAuthorizers gives `$connect` for a token source, in a stack of its own. */
  function identitySourceOf(source?: WebSocketTokenSource): unknown {
    const small = new CdkStack();
    const fn = LambdaFunction.fromFunctionArn(
      small,
      'Fn',
      'arn:aws:lambda:eu-west-1:111111111111:function:a',
    );
    const { webSocketAuthorizer } = builtInAuthorizers(TEST_AUTH, fn, source);
    new WebSocketApi(small, 'Api', {
      connectRouteOptions: {
        integration: new WebSocketMockIntegration('I'),
        authorizer: webSocketAuthorizer,
      },
    });
    const [authorizer] = Object.values(
      Template.fromStack(small).findResources('AWS::ApiGatewayV2::Authorizer'),
    );
    return (authorizer as { Properties: { IdentitySource: unknown } }).Properties.IdentitySource;
  }

  it('names the documented form of each place a token may be, one at a time', () => {
    expect(identitySourceOf('subprotocol')).toEqual(['route.request.header.Sec-WebSocket-Protocol']);
    expect(identitySourceOf('query')).toEqual(['route.request.querystring.token']);
    expect(identitySourceOf('either')).toEqual(['route.request.header.Sec-WebSocket-Key']);
    expect(identitySourceOf()).toEqual(['route.request.header.Sec-WebSocket-Key']);
  });

  it('is never empty, and every entry has the form AWS documents for a WebSocket REQUEST authoriser', () => {
    for (const sources of Object.values(WEBSOCKET_IDENTITY_SOURCES)) {
      expect(sources.length).toBeGreaterThan(0);
      for (const source of sources)
        expect(source).toMatch(/^route\.request\.(header|querystring)\.[A-Za-z0-9._-]+$/);
    }
  });

  it('refuses any other value, naming the prop', () => {
    const { errors } = checkSwitchboardProps({
      agents: FIXTURE_AGENTS,
      auth: { ...TEST_AUTH, webSocketTokenSource: 'cookie' as WebSocketTokenSource },
    });
    expect(errors).toEqual([
      expect.stringContaining('auth.webSocketTokenSource must be one of subprotocol, query, either'),
    ]);
  });
});
