// Values both the page and the server use at run time (protocol.ts re-exports them): the page may
// import only from its own folder, which is all the server serves of it.

/** Files one message may carry. */
export const MAX_FILES_PER_MESSAGE = 10;
/** Where the page uploads a file (POST, the bytes as the body, the name URI-encoded in UPLOAD_NAME_HEADER). */
export const UPLOAD_PATH = "/api/upload";
export const UPLOAD_NAME_HEADER = "x-baton-file-name";
