// Type-checks the access-control API of artifact-bloom/server as a
// TypeScript user writes it (issue 35 §1–§3): a hand-written authorizer
// returning each decision kind, bearer tokens with scopes and tenants, a
// tenant handler over a Map and a function, a rate limiter's metrics.
// Compiled by `npx tsc --noEmit -p js-tests/types`; never run.
import {
  type AccessDecision,
  type Authorizer,
  type BearerTokenEntry,
  bearerTokenAuthorizer,
  constantTimeEqual,
  createRateLimiter,
  createRequestHandler,
  createTenantHandler,
  type FetchHandler,
  type RateLimitMetrics,
  renderRateLimitPrometheus,
  withAccessControl,
} from "artifact-bloom/server";

const catalog = { catalogVersion: 1, has: (hex: string) => hex.startsWith("00") };
const inner: FetchHandler = createRequestHandler({ catalog });

const byHeader: Authorizer = async (request, { scope, tenant }) => {
  const key = request.headers.get("x-api-key");
  if (key === null) return { kind: "unauthenticated" };
  if (scope === "admin") return { kind: "forbidden" };
  const decision: AccessDecision = { kind: "allow", client: key.slice(0, 8), tenants: tenant === undefined ? [] : [tenant] };
  return decision;
};

const entries: BearerTokenEntry[] = [
  { token: "0123456789abcdef0123", scopes: ["read", "existence"], tenants: ["team-a"], name: "ci" },
  { token: "fedcba98765432100123", scopes: ["admin"], tenants: "*" },
];
const tokens = bearerTokenAuthorizer(entries, { publicScopes: ["read"] });
const limiter = createRateLimiter({ burst: 10_000, digestsPerSecond: 1_000, maxClients: 50_000, now: () => Date.now() });

const single: FetchHandler = withAccessControl(inner, {
  authorize: byHeader,
  basePath: "/catalog/",
  cors: ["https://app.example"],
  rateLimit: { limiter, clientKey: (request, decision) => decision.client ?? request.headers.get("x-forwarded-for") ?? "-" },
  maxBodyBytes: 1024 * 1024,
  adminPaths: ["stats"],
  onError: (error) => console.error(error),
  bodyBudgetBytes: 16 * 1024 * 1024,
});
const byMap: FetchHandler = createTenantHandler({ tenants: new Map([["team-a", inner]]), authorize: tokens });
const byFunction: FetchHandler = createTenantHandler({
  tenants: async (name) => (name === "team-a" ? inner : undefined),
  authorize: tokens,
  rateLimit: { limiter },
});

const metrics: RateLimitMetrics = limiter.metrics();
const text: string = renderRateLimitPrometheus(metrics);
const verdict = limiter.take("client", 10);
const wait: number = verdict.allowed ? 0 : verdict.retryAfterSeconds;
const same: boolean = constantTimeEqual(new Uint8Array(32), new Uint8Array(32));
export { byFunction, byMap, same, single, text, wait };
