import { importJWK, type JWK, SignJWT } from 'jose';

/*
 * FOR LOCAL USE ONLY. This key pair is public: it is committed to the repository so that the sandbox
 * and the `switchboard token` command agree on it without setup. A token it signs proves nothing
 * outside the sandbox. Never configure a deployment to trust it: its issuer, {@link DEV_ISSUER}, is a
 * name under `.invalid`, which no real identity provider can have.
 */

/** The issuer of sandbox tokens (`iss`). Not a real host: the sandbox serves its discovery document itself. */
export const DEV_ISSUER = 'https://sandbox.switchboard.invalid';

/** The audience the sandbox accepts by default (`aud`), as a deployment's `auth.audience` would. */
export const DEV_AUDIENCE = 'switchboard-sandbox';

/** The key id (`kid`) of the development key. */
export const DEV_KEY_ID = 'switchboard-sandbox-dev-1';

/** The development key's public half, as the sandbox serves it in its key set. */
export const DEV_PUBLIC_JWK: JWK = {
  kty: 'RSA',
  n: '0QiwpBI1TLHx0g1rbHrRnuJiDFhO9L7varwEnyRlGw4AsKjd1Gpd_FrYc05fyAwV34v5kalWHj4aqlWj2MXox-Su_rx95YOMKEZzeJzLuIeEfOId8xSYkfkwIcVFh5pJT7uSkKU1fcIgMj0SdGjmEVWLS8qQAe5-ew7ao_rB0796vGxPqajs0hwkqxVvIL9X6YpfG-EAwTGPThoP95wSCVrCp-_pGXKkY2FN4rsOhOahSyJI8C4jrUFlnXL9SUx5QrOLazEITpbVpcinp6R2Gb-ccvyDOi0ZCgUL49rVxGSAkMCAgQ3tCLXJ7nNNdc4dW8_AWdaaGRT0Vo7y_uLLLQ',
  e: 'AQAB',
  kid: DEV_KEY_ID,
  alg: 'RS256',
  use: 'sig',
};

/** The development key's private half. FOR LOCAL USE ONLY (see above). */
const DEV_PRIVATE_JWK: JWK = {
  kty: 'RSA',
  n: '0QiwpBI1TLHx0g1rbHrRnuJiDFhO9L7varwEnyRlGw4AsKjd1Gpd_FrYc05fyAwV34v5kalWHj4aqlWj2MXox-Su_rx95YOMKEZzeJzLuIeEfOId8xSYkfkwIcVFh5pJT7uSkKU1fcIgMj0SdGjmEVWLS8qQAe5-ew7ao_rB0796vGxPqajs0hwkqxVvIL9X6YpfG-EAwTGPThoP95wSCVrCp-_pGXKkY2FN4rsOhOahSyJI8C4jrUFlnXL9SUx5QrOLazEITpbVpcinp6R2Gb-ccvyDOi0ZCgUL49rVxGSAkMCAgQ3tCLXJ7nNNdc4dW8_AWdaaGRT0Vo7y_uLLLQ',
  e: 'AQAB',
  d: 'XVTJdcBRfvh2lch7Hdjqrku65nMpcbqssFXZpGq-H-nNIhOL1DNX2nx_Z2BngKzwuTrIyCI4-tDU3BfXy8p1yIaRIdjsR2VIV5U5KnGrviz32UCmiam5A3gk5vcrN8QKFqkT5DR3oTpjYLsG-eX6T2QICWOcj9g6Ldywf4XPNCjcRwrwExBuw98-JZrMFh62pu4gtZ5IT_UG5NPCnscApuNW98MaYHmJa9IRhXtYG5CPmGGHCgnyPA1z4QUpMusmtAVcgyHfErN3ALShHeAC8K2uDOaDcydNn79NsmQFq8sl_ma_JIfzX99A80-loIWYsnpZzE7OtfCouSDZU5VIuw',
  p: '7xaniNZrootl1G0zKnsTgRWIuAJDjr1OXzb0qQntZ6lAw-uF6L2Jm7OTeT6bNyjGm0bztWhINA_HpFpxYHVqZ_3zAHOAdxz_vtI6tWwgwc__cljIfBW14nhc0ldERgeHeA8p2tujiDstU0mKv7xUhhHTftxIfzAX1ayqImVi4K8',
  q: '39HRA9sl7r_CUiQ7sPhJdStoaejWNAG2_aETo2dK38dFR88AA5vFrDAhSA2xE9y-GjD7oiHAvi4-N11xy5R7ilg7A_vj3iNLY6fsbwc6DPM5mCkG_-ogjO5pVLZRR65DbyiadgrEuHNhiIakNZayao1IyFrHMc_hkZag6GjncOM',
  dp: 'PZlTnsDHyIArwzhDR32gP9DBgc8rgropWAS7slWZcey8f_3NaXJz4sa4hzNnICYETXtRTPrKJ4etQx3-OgDmYlaeZg5cGdRB2_MkJxvtsKGbSeWv-bBKRUgHejX7pCNKdtdJTFbsYiwE-IFpGw81o7kyCWxNzV8htO6ggu4mNIc',
  dq: 'bL_CofACL04G-ehXBHavInoz4nnaUiyfH_76zsNqcu6cr_ZZGGfAlRhRo3PbnT39NDamnTFvODi5zCbgGr2LhT23dwkVv6JAiCxYSd4mC5LGYjNVDlVQ-YkBrsJjHcQDSehdnItA6CpPsolREiSljfYV7huFe6N5A0c_6YzHH2c',
  qi: 'ktkuKfvEIKbyHd3D78nL3fXES-g2JtFBiLTuFZICBaz1z_Gd7QV_ygMzWBeFFSFO9UQw0nm1fHpl-FXFOs9ZezeJ85UTAfp0hsOX8hNJwZLEL12L9a1cS0c398PVCAfi0mvOJ5uLl5F-rr-j-FKaHaQLq_-s4XIlR3hgS59F9BY',
};

/** What a development token says. */
export interface DevTokenOptions {
  /** `sub`: the user. */
  user: string;
  /** `tenant`, when given. */
  tenant?: string;
  /** Seconds until `exp`. Default 3600. */
  ttlSeconds?: number;
  /** `aud`. Default {@link DEV_AUDIENCE}. */
  audience?: string;
  /** `iss`. Default {@link DEV_ISSUER}; another one is refused, which is what tests use it for. */
  issuer?: string;
  /** More claims (`role`, `custom:plan`, …), for trying out a `resolveContext`. */
  claims?: Record<string, unknown>;
}

/**
 * A token signed with the development key (RS256), as an identity provider would issue one: `iss`,
 * `sub`, `aud`, `iat`, `exp`, and `tenant` when given. FOR LOCAL USE ONLY.
 *
 * @example
 * ```ts
 * const token = await mintDevToken({ user: 'alice', tenant: 'acme' });
 * await fetch(`${sandbox.url}/api/sessions/s1`, { headers: { authorization: `Bearer ${token}` } });
 * ```
 */
export async function mintDevToken(options: DevTokenOptions): Promise<string> {
  const key = await importJWK(DEV_PRIVATE_JWK, 'RS256');
  const ttl = options.ttlSeconds ?? 3600;
  return new SignJWT({ ...options.claims, ...(options.tenant !== undefined && { tenant: options.tenant }) })
    .setProtectedHeader({ alg: 'RS256', kid: DEV_KEY_ID, typ: 'JWT' })
    .setIssuer(options.issuer ?? DEV_ISSUER)
    .setSubject(options.user)
    .setAudience(options.audience ?? DEV_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttl)
    .sign(key);
}
