// The Matrix adapter's entry, loaded only when a Matrix platform is enabled.
import { PlatformError } from "../../kernel/errors.js";
import type { PlatformFactory } from "../contract.js";
import type { MatrixAdapterConfig } from "./config.js";

// The adapter itself is written against the platform kit; until then starting it says so.
export const createMatrixAdapter: PlatformFactory<MatrixAdapterConfig> = () => {
  throw new PlatformError("The Matrix adapter is not part of this build yet (its connection, encryption and login are).", { reason: "refused" });
};
