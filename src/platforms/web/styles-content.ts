// The page's stylesheet, part two: messages and what the rendered markdown contains.

export const CONTENT_STYLES = `
.message { position: relative; max-width: 100%; animation: appear .15s ease-out; }
.message .time { position: absolute; top: 50%; transform: translateY(-50%); font-size: 11px; color: var(--muted); opacity: 0; transition: opacity .15s; pointer-events: none; white-space: nowrap; }
.message:hover .time { opacity: 1; }
.message.user { align-self: flex-end; max-width: min(80%, 640px); }
.message.user .body { background: var(--accent); color: var(--on-accent); padding: 9px 15px; border-radius: var(--radius) var(--radius) 4px var(--radius); }
.message.user .time { right: calc(100% + 10px); }
.message.agent .time { top: -14px; right: 2px; transform: none; }
.message.agent { align-self: stretch; }
.kind-text .body { padding: 2px 2px; }
.kind-notice .body { background: var(--bg-soft); border: 1px solid var(--border); border-radius: 12px; padding: 10px 14px; font-size: 14px; }
.kind-usage .body { color: var(--muted); font-size: 12.5px; }
.kind-usage .body p { margin: 0; }
.file { display: inline-block; margin: 2px 0 6px; padding: 6px 12px; border: 1px solid var(--border); border-radius: 10px; background: var(--bg-soft); font-size: 13.5px; color: var(--text); text-decoration: none; }
a.file:hover { border-color: var(--accent); color: var(--accent); }
.message.user .file { background: var(--accent-soft); float: right; clear: both; }
.file-image { display: inline-block; margin: 2px 0 6px; }
.file-image img { display: block; max-width: min(100%, 480px); max-height: 360px; min-width: 48px; min-height: 48px; border-radius: 10px; border: 1px solid var(--border); image-rendering: auto; background: var(--bg-soft); }
.kind-error .body { background: var(--danger-soft); border: 1px solid color-mix(in srgb, var(--danger) 35%, transparent); border-radius: 12px; padding: 10px 14px; }
.kind-thought .body { color: var(--muted); font-size: 14px; border-left: 3px solid var(--border); padding: 2px 12px; }
.kind-approval { background: var(--bg); border: 1px solid color-mix(in srgb, var(--accent) 45%, var(--border)); border-radius: 14px; padding: 12px 16px; box-shadow: var(--shadow); }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 10px; }
.action { border-radius: 10px; padding: 7px 14px; font-weight: 600; font-size: 14px; border: 1px solid var(--border); background: var(--bg); }
.action:hover:not(:disabled) { border-color: var(--accent); }
.action-primary { background: var(--accent); color: var(--on-accent); border-color: var(--accent); }
.action-primary:hover:not(:disabled) { background: var(--accent-strong); }
.action-danger { color: var(--danger); border-color: color-mix(in srgb, var(--danger) 40%, transparent); }
.action.pressed { outline: 2px solid var(--accent); outline-offset: 1px; }

.body > :first-child { margin-top: 0; } .body > :last-child { margin-bottom: 0; }
.body p { margin: 0 0 .7em; }
.body p.plain { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
.body h1, .body h2, .body h3, .body h4, .body h5, .body h6 { margin: 1em 0 .45em; line-height: 1.3; }
.body h1 { font-size: 1.35em; } .body h2 { font-size: 1.2em; } .body h3 { font-size: 1.08em; } .body h4, .body h5, .body h6 { font-size: 1em; }
.body ul, .body ol { margin: 0 0 .7em; padding-left: 1.5em; }
.body li { margin: .15em 0; }
.body li.task-item { list-style: none; margin-left: -1.3em; }
.task { display: inline-block; width: 14px; height: 14px; border: 1.5px solid var(--muted); border-radius: 4px; margin-right: 8px; vertical-align: -2px; }
.task-done { background: var(--accent); border-color: var(--accent); }
.body a { color: var(--accent); text-decoration: underline; text-underline-offset: 2px; }
.message.user .body a { color: inherit; }
.body blockquote { margin: 0 0 .7em; padding: 2px 14px; border-left: 3px solid var(--border); color: var(--muted); }
.body hr { border: 0; border-top: 1px solid var(--border); margin: 1em 0; }
.body code { font: .88em var(--mono); background: var(--inline-code); padding: .12em .38em; border-radius: 5px; }
.message.user .body code { background: rgb(255 255 255 / 18%); }
.code { position: relative; margin: 0 0 .8em; background: var(--code-bg); border-radius: 10px; overflow: hidden; border: 1px solid var(--border); }
.code pre { margin: 0; padding: 12px 14px; overflow-x: auto; }
.code code { background: none; padding: 0; color: var(--code-text); font-size: 13px; line-height: 1.55; }
.code-lang { font: 11.5px var(--mono); color: #94a3b8; padding: 6px 14px 0; text-transform: lowercase; }
.copy { position: absolute; top: 6px; right: 6px; font-size: 12px; padding: 3px 9px; border-radius: 6px; border: 1px solid rgb(148 163 184 / 35%); background: rgb(15 23 42 / 70%); color: #cbd5e1; opacity: 0; transition: opacity .15s; }
.code:hover .copy { opacity: 1; }
.table { overflow-x: auto; margin: 0 0 .8em; }
.body table { border-collapse: collapse; font-size: 14px; }
.body th, .body td { border: 1px solid var(--border); padding: 6px 10px; text-align: left; }
.body th { background: var(--bg-soft); font-weight: 600; }
.body .align-center { text-align: center; } .body .align-right { text-align: right; }
.footnote { font-size: 13px; color: var(--muted); }

.tools { display: flex; flex-direction: column; gap: 2px; font-size: 13px; color: var(--muted); border-left: 2px solid var(--border); padding: 2px 12px; }
.tool-line { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.tool-line code { font-size: 12px; }
.plan { border: 1px solid var(--border); border-radius: 12px; padding: 10px 14px; background: var(--bg-soft); }
.plan-title { font-weight: 650; font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin-bottom: 6px; }
.body .plan-list { list-style: none; margin: 0; padding: 0; }
.plan-list li { display: flex; align-items: baseline; gap: 10px; padding: 2px 0; }
.plan-mark { flex: none; width: 14px; height: 14px; border: 1.5px solid var(--muted); border-radius: 50%; transform: translateY(2px); }
.plan-completed { color: var(--muted); text-decoration: line-through; }
.plan-completed .plan-mark { background: var(--ok); border-color: var(--ok); }
.plan-in_progress { font-weight: 600; }
.plan-in_progress .plan-mark { border-color: var(--accent); border-width: 4px; }

.empty { margin: auto; text-align: center; max-width: 440px; color: var(--muted); padding: 40px 0; }
.empty-title { font-size: 22px; font-weight: 700; color: var(--text); margin-bottom: 6px; letter-spacing: -.01em; }
.chips { display: flex; flex-wrap: wrap; gap: 8px; justify-content: center; margin-top: 16px; }
.chip { border: 1px solid var(--border); background: var(--bg); border-radius: 999px; padding: 6px 14px; font-size: 13.5px; }
.chip:hover { border-color: var(--accent); color: var(--accent); }

@keyframes appear { from { opacity: 0; transform: translateY(3px); } }
`;
