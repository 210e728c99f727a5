// The page's HTML shell. Everything dynamic is built by the script (client/app.ts) with DOM calls;
// the server-rendered message HTML comes from render.ts, already sanitised.

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#4f46e5"/><path d="M9 23 23 9" stroke="#fff" stroke-width="4" stroke-linecap="round"/><circle cx="23" cy="9" r="3.5" fill="#fbbf24"/></svg>`;

export function renderPageHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Baton</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/style.css">
<script type="module" src="/assets/app.js"></script>
</head>
<body>
<div class="app" id="app">
  <aside class="sidebar" id="sidebar" aria-label="Conversations">
    <div class="brand"><img src="/assets/favicon.svg" alt="" width="24" height="24"><span>Baton</span></div>
    <button type="button" id="new-chat" class="new-chat">New chat</button>
    <nav id="conversations" class="conversations"></nav>
    <div class="sidebar-foot"><span id="connection" class="connection">Connecting…</span></div>
  </aside>
  <main class="chat">
    <header class="chat-head">
      <button type="button" id="toggle-sidebar" class="icon-button" aria-label="Show conversations">☰</button>
      <div class="chat-title"><h1 id="chat-title">New chat</h1><div id="chat-meta" class="chat-meta"></div></div>
      <span id="chat-state" class="state-badge" hidden></span>
    </header>
    <div id="banner" class="banner" role="status" hidden></div>
    <section id="messages" class="messages" aria-live="polite"></section>
    <div id="typing" class="typing" hidden><span class="dots"><i></i><i></i><i></i></span><span id="typing-label">Agent is working…</span></div>
    <form id="composer" class="composer" autocomplete="off">
      <div id="hints" class="hints" role="listbox" hidden></div>
      <div id="attachments" class="attachments" hidden></div>
      <div class="composer-box">
        <button type="button" id="attach" class="attach" aria-label="Attach files" title="Attach files"><svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path d="M21 11.5 12.6 19.9a5.5 5.5 0 0 1-7.8-7.8l8.5-8.5a3.7 3.7 0 0 1 5.2 5.2l-8.5 8.5a1.8 1.8 0 0 1-2.6-2.6l7.8-7.8" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/></svg></button>
        <input type="file" id="file-input" multiple hidden>
        <textarea id="input" rows="1" placeholder="Message the agent, or type / for commands" data-short-placeholder="Message, or / for commands" aria-label="Message"></textarea>
        <button type="button" id="stop" class="stop" hidden>Stop</button>
        <button type="submit" id="send" class="send" aria-label="Send">Send</button>
      </div>
      <div class="composer-foot">Enter to send · Shift+Enter for a new line · <kbd>/</kbd> for commands · drop or paste files</div>
    </form>
  </main>
  <div id="backdrop" class="backdrop"></div>
</div>
<div id="toasts" class="toasts" aria-live="assertive"></div>
</body>
</html>
`;
}
