// multipart/form-data as the platforms' fakes read it: lenient the way the real servers are (header
// names in any case, parameters quoted or not, as grammy and discord.js send them).

export interface UploadedPart {
  filename: string;
  mimeType: string;
  data: Buffer;
}

/** multipart/form-data → fields (strings) and files (UploadedPart). Throws on a malformed body. */
export function parseMultipart(body: Buffer, boundary: string): Record<string, string | UploadedPart> {
  const out: Record<string, string | UploadedPart> = {};
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  if (at === -1) throw new Error("no multipart boundary in the body");
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === "--") return out;
    const headerEnd = body.indexOf("\r\n\r\n", at);
    const next = body.indexOf(delimiter, headerEnd);
    if (headerEnd === -1 || next === -1) throw new Error("a multipart part is cut short");
    const headers = body.subarray(at + 2, headerEnd).toString("utf8");
    const data = body.subarray(headerEnd + 4, next - 2);
    const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(headers)?.[1] ?? "";
    const name = paramOf(disposition, "name");
    if (!name) throw new Error("a multipart part has no name");
    const filename = paramOf(disposition, "filename");
    const mimeType = /^content-type:\s*(\S+)\s*$/im.exec(headers)?.[1] ?? "application/octet-stream";
    out[name] = filename === undefined ? data.toString("utf8") : { filename, mimeType, data: Buffer.from(data) };
    at = next;
  }
}

function paramOf(header: string, key: string): string | undefined {
  const m = new RegExp(`;\\s*${key}=(?:"([^"]*)"|([^;\\s]*))`, "i").exec(header);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** The boundary of a multipart content type, or undefined for any other body. */
export function boundaryOf(contentType: string): string | undefined {
  return /^multipart\/form-data;\s*boundary=("?)([^";]+)\1/i.exec(contentType)?.[2];
}
