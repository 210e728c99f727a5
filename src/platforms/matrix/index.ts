// The Matrix adapter's entry, loaded only when a Matrix platform is enabled (it loads matrix-js-sdk
// and the crypto wasm).
import type { PlatformFactory } from "../contract.js";
import type { MatrixAdapterConfig } from "./config.js";
import { MatrixAdapter } from "./adapter.js";

export { MatrixAdapter, MATRIX_MAX_MARKDOWN_CHARS } from "./adapter.js";
export const createMatrixAdapter: PlatformFactory<MatrixAdapterConfig> = (name, config, env) => new MatrixAdapter(name, config, env);
