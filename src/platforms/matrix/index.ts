// The Matrix adapter's entry, loaded only when a Matrix platform is enabled.
import type { PlatformFactory } from "../contract.js";
import type { MatrixAdapterConfig } from "./config.js";
import { MatrixAdapter } from "./adapter.js";

export { MatrixAdapter };
export const createMatrixAdapter: PlatformFactory<MatrixAdapterConfig> = (name, config, env) => new MatrixAdapter(name, config, env);
