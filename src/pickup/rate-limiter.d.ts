// rate-limiter-flexible's index loads every backend it has (Mongo, MySQL, Postgres, Dynamo,
// Etcd, …); Baton imports the modules it uses, typed from the package's own declarations.
declare module "rate-limiter-flexible/lib/RateLimiterMemory.js" {
  import { RateLimiterMemory } from "rate-limiter-flexible";
  export default RateLimiterMemory;
}
declare module "rate-limiter-flexible/lib/RateLimiterRedis.js" {
  import { RateLimiterRedis } from "rate-limiter-flexible";
  export default RateLimiterRedis;
}
declare module "rate-limiter-flexible/lib/RateLimiterPostgres.js" {
  import { RateLimiterPostgres } from "rate-limiter-flexible";
  export default RateLimiterPostgres;
}
declare module "rate-limiter-flexible/lib/RateLimiterRes.js" {
  import { RateLimiterRes } from "rate-limiter-flexible";
  export default RateLimiterRes;
}
