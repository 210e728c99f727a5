// The page's stylesheet, part one: theme (light/dark from prefers-color-scheme) and layout.
// Message content (markdown, code, plans, tools) is in styles-content.ts.
import { CONTENT_STYLES } from "./styles-content.js";

const LAYOUT_STYLES = `
:root {
  --bg: #ffffff; --bg-soft: #f6f7f9; --sidebar: #f3f4f7; --border: #e4e6eb; --text: #111827; --muted: #6b7280;
  --accent: #4f46e5; --accent-strong: #4338ca; --accent-soft: #eef2ff; --on-accent: #ffffff;
  --ok: #16a34a; --warn: #d97706; --danger: #dc2626; --danger-soft: #fef2f2;
  --code-bg: #0f172a; --code-text: #e2e8f0; --inline-code: #f1f2f6; --shadow: 0 1px 2px rgb(0 0 0 / 6%), 0 4px 16px rgb(0 0 0 / 6%);
  --radius: 14px; --font: ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  --mono: ui-monospace, "SF Mono", "JetBrains Mono", Menlo, Consolas, "Liberation Mono", monospace;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1115; --bg-soft: #161a21; --sidebar: #12151b; --border: #262b35; --text: #e6e8ec; --muted: #9aa3b2;
    --accent: #818cf8; --accent-strong: #6366f1; --accent-soft: #1e1f3f; --on-accent: #0b0c1a;
    --ok: #4ade80; --warn: #fbbf24; --danger: #f87171; --danger-soft: #2a1416;
    --code-bg: #0a0d12; --code-text: #e2e8f0; --inline-code: #1d222b; --shadow: 0 1px 2px rgb(0 0 0 / 40%), 0 4px 16px rgb(0 0 0 / 30%);
  }
}
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; }
body { background: var(--bg); color: var(--text); font: 15px/1.55 var(--font); -webkit-font-smoothing: antialiased; }
button { font: inherit; color: inherit; cursor: pointer; }
button:disabled { cursor: default; opacity: .55; }
[hidden] { display: none !important; }
kbd { font: 12px var(--mono); border: 1px solid var(--border); border-radius: 4px; padding: 0 4px; }

.app { display: grid; grid-template-columns: 290px 1fr; height: 100vh; height: 100dvh; }
.sidebar { background: var(--sidebar); border-right: 1px solid var(--border); display: flex; flex-direction: column; min-height: 0; }
.brand { display: flex; align-items: center; gap: 10px; padding: 18px 18px 12px; font-weight: 700; font-size: 17px; letter-spacing: -.01em; }
.new-chat { margin: 4px 14px 12px; padding: 9px 12px; border-radius: 10px; border: 1px solid var(--border); background: var(--bg); text-align: left; font-weight: 600; box-shadow: var(--shadow); }
.new-chat::before { content: "+"; display: inline-block; width: 18px; color: var(--accent); font-weight: 700; }
.new-chat:hover { border-color: var(--accent); }
.conversations { flex: 1; overflow-y: auto; padding: 0 8px 8px; }
.conversation { position: relative; padding: 10px 12px; border-radius: 10px; cursor: pointer; margin-bottom: 2px; outline: none; }
.conversation:hover, .conversation:focus-visible { background: color-mix(in srgb, var(--text) 5%, transparent); }
.conversation.selected { background: var(--accent-soft); }
.conversation-top { display: flex; gap: 8px; align-items: baseline; }
.conversation-title { flex: 1; font-weight: 600; font-size: 14px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.conversation-age { color: var(--muted); font-size: 12px; }
.conversation.unread .conversation-age { color: var(--accent); font-weight: 700; }
.conversation.unread .conversation-age::before { content: ""; display: inline-block; width: 7px; height: 7px; border-radius: 50%; background: var(--accent); margin-right: 5px; vertical-align: 1px; }
.conversation-meta { display: flex; align-items: center; gap: 6px; color: var(--muted); font-size: 12.5px; margin-top: 2px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.forget { position: absolute; right: 6px; top: 26px; border: 0; background: none; color: var(--muted); font-size: 16px; line-height: 1; padding: 2px 6px; border-radius: 6px; opacity: 0; }
.conversation:hover .forget { opacity: 1; }
.forget:hover { background: color-mix(in srgb, var(--danger) 15%, transparent); color: var(--danger); }
.dot { width: 8px; height: 8px; border-radius: 50%; background: var(--muted); flex: none; }
.dot-running { background: var(--ok); box-shadow: 0 0 0 3px color-mix(in srgb, var(--ok) 25%, transparent); animation: pulse 1.4s ease-in-out infinite; }
.dot-idle { background: var(--warn); }
.dot-new { background: transparent; border: 1.5px solid var(--muted); }
.sidebar-foot { padding: 10px 18px; border-top: 1px solid var(--border); font-size: 12.5px; color: var(--muted); }
.connection::before { content: ""; display: inline-block; width: 7px; height: 7px; border-radius: 50%; margin-right: 7px; background: var(--warn); vertical-align: 1px; }
.connection[data-state="open"]::before { background: var(--ok); }
.connection[data-state="unauthorized"]::before { background: var(--danger); }

.chat { display: flex; flex-direction: column; min-width: 0; min-height: 0; }
.chat-head { display: flex; align-items: center; gap: 12px; padding: 12px 24px; border-bottom: 1px solid var(--border); background: var(--bg); }
.chat-title { flex: 1; min-width: 0; }
.chat-title h1 { margin: 0; font-size: 16px; font-weight: 650; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.chat-meta { color: var(--muted); font-size: 12.5px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.icon-button { display: none; border: 1px solid var(--border); background: var(--bg); border-radius: 8px; padding: 4px 10px; }
.state-badge { font-size: 12px; font-weight: 600; padding: 3px 10px; border-radius: 999px; background: var(--bg-soft); color: var(--muted); border: 1px solid var(--border); text-transform: capitalize; }
.state-badge[data-state="running"] { color: var(--ok); border-color: color-mix(in srgb, var(--ok) 40%, transparent); }
.banner { padding: 8px 24px; background: color-mix(in srgb, var(--warn) 16%, var(--bg)); color: var(--text); font-size: 13.5px; border-bottom: 1px solid var(--border); }

.messages { flex: 1; overflow-y: auto; padding: 24px max(24px, calc((100% - 820px) / 2)); display: flex; flex-direction: column; gap: 14px; scroll-behavior: auto; }
.typing { display: flex; align-items: center; gap: 10px; color: var(--muted); font-size: 13px; padding: 0 max(24px, calc((100% - 820px) / 2)) 6px; }
.dots { display: inline-flex; gap: 4px; }
.dots i { width: 6px; height: 6px; border-radius: 50%; background: var(--accent); animation: bounce 1.2s infinite ease-in-out; }
.dots i:nth-child(2) { animation-delay: .15s; } .dots i:nth-child(3) { animation-delay: .3s; }

.composer { position: relative; padding: 8px max(24px, calc((100% - 820px) / 2)) 14px; }
.composer-box { display: flex; align-items: flex-end; gap: 8px; border: 1px solid var(--border); background: var(--bg); border-radius: 16px; padding: 8px 8px 8px 14px; box-shadow: var(--shadow); }
.composer-box:focus-within { border-color: var(--accent); }
.composer textarea { flex: 1; resize: none; border: 0; outline: none; background: transparent; color: var(--text); font: inherit; line-height: 1.5; padding: 6px 0; max-height: 220px; }
.send, .stop { border: 0; border-radius: 11px; padding: 8px 16px; font-weight: 600; }
.send { background: var(--accent); color: var(--on-accent); }
.send:hover { background: var(--accent-strong); }
.stop { background: var(--danger-soft); color: var(--danger); border: 1px solid color-mix(in srgb, var(--danger) 35%, transparent); }
.stop::before { content: ""; display: inline-block; width: 9px; height: 9px; background: currentColor; border-radius: 2px; margin-right: 7px; }
.composer-foot { color: var(--muted); font-size: 12px; margin: 6px 4px 0; }
.composer.dropping .composer-box { border-color: var(--accent); border-style: dashed; }
.attach { border: 0; background: none; color: var(--muted); padding: 6px 4px; border-radius: 8px; display: inline-flex; }
.attach:hover { color: var(--accent); }
.attach:hover { background: var(--accent-soft); }
.attachments { display: flex; flex-wrap: wrap; gap: 6px; margin: 0 4px 8px; }
.attachment-chip { display: inline-flex; align-items: center; gap: 6px; max-width: 100%; font-size: 13px; padding: 4px 6px 4px 10px; border-radius: 999px; background: var(--accent-soft); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.chip-remove { border: 0; background: none; color: var(--muted); font-size: 15px; line-height: 1; padding: 0 4px; border-radius: 50%; }
.chip-remove:hover { color: var(--danger); }
.hints { position: absolute; left: max(24px, calc((100% - 820px) / 2)); right: max(24px, calc((100% - 820px) / 2)); bottom: calc(100% - 4px); background: var(--bg); border: 1px solid var(--border); border-radius: 12px; box-shadow: var(--shadow); padding: 6px; max-height: 300px; overflow-y: auto; z-index: 5; }
.hint { display: flex; gap: 12px; padding: 7px 10px; border-radius: 8px; cursor: pointer; }
.hint.selected, .hint:hover { background: var(--accent-soft); }
.hint-name { font: 600 13.5px var(--mono); color: var(--accent); min-width: 110px; }
.hint-description { color: var(--muted); font-size: 13.5px; }

.toasts { position: fixed; right: 20px; bottom: 20px; display: flex; flex-direction: column; gap: 8px; z-index: 10; }
.toast { background: var(--text); color: var(--bg); padding: 9px 14px; border-radius: 10px; box-shadow: var(--shadow); font-size: 14px; transition: opacity .4s; }
.toast-error { background: var(--danger); color: #fff; }
.toast-out { opacity: 0; }

@keyframes pulse { 50% { opacity: .45; } }
@keyframes bounce { 0%, 80%, 100% { transform: translateY(0); opacity: .5; } 40% { transform: translateY(-4px); opacity: 1; } }

.backdrop { display: none; }

@media (max-width: 760px) {
  .app { grid-template-columns: 1fr; }
  /* Behind the open list: dims the chat and takes the tap that closes the list. */
  .backdrop { display: block; position: fixed; inset: 0; z-index: 15; background: rgb(15 23 42 / .45); opacity: 0; pointer-events: none; transition: opacity .2s; }
  .app.sidebar-open .backdrop { opacity: 1; pointer-events: auto; }
  .composer { padding: 8px 12px 12px; }
  .composer-box { padding-left: 10px; }
  .sidebar { position: fixed; inset: 0 20% 0 0; z-index: 20; transform: translateX(-105%); transition: transform .2s; box-shadow: var(--shadow); }
  .app.sidebar-open .sidebar { transform: none; }
  .icon-button { display: inline-block; }
  .chat-head { padding: 10px 14px; }
  .composer-foot { display: none; }
}
`;

export const STYLESHEET = LAYOUT_STYLES + CONTENT_STYLES;
