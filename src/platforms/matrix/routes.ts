// Matrix routes: `<instance>:<room id>` for a room, `<instance>:<room id>:<thread root event id>`
// for an `m.thread` thread. Room ids are `!opaque:server[:port]`; event ids start with `$` and a
// server name never holds one, so the thread part is whatever follows the last `:$`.

export interface MatrixRoute {
  roomId: string;
  threadRoot?: string;
}

const ROUTE_BODY = /^(![^:]+:[^$]+?)(?::(\$[^:]*[^:]))?$/;

export function formatMatrixRoute(instance: string, route: MatrixRoute): string {
  return `${instance}:${route.roomId}${route.threadRoot ? `:${route.threadRoot}` : ""}`;
}

/** The room (and thread) of a route of this instance, or undefined when it is not one. */
export function parseMatrixRoute(route: string, instance = "matrix"): MatrixRoute | undefined {
  if (!route.startsWith(`${instance}:`)) return undefined;
  const match = ROUTE_BODY.exec(route.slice(instance.length + 1));
  if (!match) return undefined;
  return match[2] ? { roomId: match[1], threadRoot: match[2] } : { roomId: match[1] };
}

/** Whether `route` is a Matrix route of any instance (`matrix:…`, `matrix_work:…`): for config checks. */
export function isMatrixRoute(route: string): boolean {
  const colon = route.indexOf(":");
  return colon > 0 && parseMatrixRoute(route, route.slice(0, colon)) !== undefined;
}
