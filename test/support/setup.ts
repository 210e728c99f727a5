// Loaded before every test file: what a running Baton loads right after start-up (the markdown
// parser) is loaded here too, so tests may call the renderers directly.
import { loadMarkdown } from "../../src/render/markdown.js";

await loadMarkdown();
