// Matrix as Baton sees it before it is enabled: neither matrix-js-sdk nor the crypto wasm is loaded here.
import { commonSettings } from "../kit/config.js";
import type { PlatformDescriptor } from "../kit/descriptor.js";
import { matrixConfigSchema, type MatrixAdapterConfig } from "./config.js";

export const matrixPlatform: PlatformDescriptor<MatrixAdapterConfig> = {
  kind: "matrix",
  schema: matrixConfigSchema,
  load: async () => (await import("./index.js")).createMatrixAdapter,
  doctor: async () => (await import("./doctor.js")).checkMatrixCredentials,
  secrets: (config) => [config.access_token, config.password],
  common: (config) => commonSettings(config),
};
