// Sanitised HTML for the Text Editor (desk.md §2, §4): a field meant to hold HTML is shown as a tree
// of allowed elements built with Preact, never by handing text to the browser's HTML parser (the
// Desk parses no markup). A small tokenizer reads the text; only the tags below survive, with only
// their listed attributes (links only to http, https, mailto or this site, opened safely); every
// other tag is dropped with its text kept, except script, style and the like, dropped whole.
// `sanitize` is pure (`node --test` covers it); `renderSanitized` makes the vnodes.
import { h } from "../lib/html.js";

const ALLOWED = new Set(["p", "br", "b", "strong", "i", "em", "u", "s", "ul", "ol", "li", "a", "h1", "h2", "h3", "h4",
	"blockquote", "code", "pre", "span", "div", "hr", "sub", "sup", "table", "thead", "tbody", "tr", "th", "td"]);
const VOID = new Set(["br", "hr", "img", "input", "meta", "link", "source", "wbr", "col", "area", "base", "embed", "param", "track"]);
const DROP_WITH_CONTENT = new Set(["script", "style", "iframe", "object", "embed", "template", "noscript", "textarea", "title", "svg", "math", "select"]);
const ATTRIBUTES = { a: new Set(["href", "title"]), td: new Set(["colspan", "rowspan"]), th: new Set(["colspan", "rowspan"]) };
const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

export function decodeEntities(text) {
	return String(text).replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, code) => {
		if (code[0] === "#") {
			const point = code[1] === "x" || code[1] === "X" ? Number.parseInt(code.slice(2), 16) : Number.parseInt(code.slice(1), 10);
			return point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : "";
		}
		return ENTITIES[code.toLowerCase()] ?? whole;
	});
}

/** Whether a link may be followed: http(s), mailto or a path of this site (no javascript:, data:). */
export function safeHref(href) {
	const value = decodeEntities(href).replace(/[\u0000-\u0020\u007f]/g, "");
	if (/^(https?:|mailto:)/i.test(value)) return true;
	return /^(\/(?!\/)|#|\?)/.test(value) || (!/^[a-z][a-z0-9+.-]*:/i.test(value) && !value.startsWith("//"));
}

const TAG = /<\/?([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s"'>\/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>|<!--[\s\S]*?(?:-->|$)|<![^>]*>|<\?[^>]*>/g;
const ATTR = /([^\s"'>\/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

function attributesOf(tag, text) {
	const allowed = ATTRIBUTES[tag];
	const out = {};
	if (!allowed) return out;
	ATTR.lastIndex = 0;
	let match;
	while ((match = ATTR.exec(text || ""))) {
		const name = match[1].toLowerCase();
		if (!allowed.has(name)) continue;
		const value = decodeEntities(match[2] ?? match[3] ?? match[4] ?? "");
		if (name === "href" && !safeHref(value)) continue;
		out[name] = value;
	}
	return out;
}

/** The allowed tree of an HTML text: [string | {tag, attrs, children}]. Pure. */
export function sanitize(text) {
	const root = { tag: null, children: [] };
	const stack = [root];
	let dropping = null; // the tag whose content is being dropped
	let last = 0;
	const source = String(text ?? "");
	const pushText = (chunk) => {
		if (!chunk || dropping) return;
		stack[stack.length - 1].children.push(decodeEntities(chunk));
	};
	TAG.lastIndex = 0;
	let match;
	while ((match = TAG.exec(source))) {
		pushText(source.slice(last, match.index));
		last = TAG.lastIndex;
		if (!match[1]) continue; // a comment, doctype or processing instruction
		const tag = match[1].toLowerCase();
		const closing = match[0][1] === "/";
		if (dropping) {
			if (closing && tag === dropping) dropping = null;
			continue;
		}
		if (DROP_WITH_CONTENT.has(tag)) {
			if (!closing && !VOID.has(tag) && !match[0].endsWith("/>")) dropping = tag;
			continue;
		}
		if (!ALLOWED.has(tag)) continue;
		if (closing) {
			const at = stack.map((n) => n.tag).lastIndexOf(tag);
			if (at > 0) stack.length = at;
			continue;
		}
		const node = { tag, attrs: attributesOf(tag, match[2]), children: [] };
		stack[stack.length - 1].children.push(node);
		if (!VOID.has(tag)) stack.push(node);
	}
	pushText(source.slice(last));
	return root.children;
}

/** Preact vnodes of a sanitised tree (links open in a new tab without access to this page). */
export function renderSanitized(nodes) {
	return nodes.map((node, index) => {
		if (typeof node === "string") return node;
		const props = { key: index, ...node.attrs };
		if (node.tag === "a") Object.assign(props, { target: "_blank", rel: "noopener noreferrer nofollow" });
		return h(node.tag, props, ...(VOID.has(node.tag) ? [] : renderSanitized(node.children)));
	});
}
