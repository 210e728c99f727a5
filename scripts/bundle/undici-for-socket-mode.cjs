// What @slack/socket-mode takes from undici (its WebSocket and `ping`, which sends the client-side
// heartbeat every 5 s, the event classes, Agent, buildConnector, and fetch when given a dispatcher;
// see its SlackWebSocket.js and SocketModeClient.js), from the modules that define them. The build
// checks that this exports every name those files use (scripts/bundle/substitutes.mjs): without
// `ping`, socket-mode closed each connection ~1.7 s after it opened. undici's index
// requires every part of undici (mock agents, caches, proxies, HTTP/2, EventSource, …), about
// twice the code, all loaded before the socket can open. The bundle gives this module to
// socket-mode instead of the index (scripts/bundle.mjs); every other importer gets the index.
"use strict";
const Agent = require("undici/lib/dispatcher/agent");
const buildConnector = require("undici/lib/core/connect");
const { CloseEvent, ErrorEvent, MessageEvent } = require("undici/lib/web/websocket/events");
const { WebSocket, ping } = require("undici/lib/web/websocket/websocket");
// The WebSocket handshake runs on undici's fetch, so this costs nothing more.
const { fetch } = require("undici/lib/web/fetch");

module.exports = { Agent, buildConnector, CloseEvent, ErrorEvent, MessageEvent, WebSocket, ping, fetch };
