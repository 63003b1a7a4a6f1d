// Doctype meta for the Desk: `getdoctype` bundles (the doctype and its child tables), kept in memory
// and in localStorage. A stored bundle is used without asking the server while the boot says its
// doctypes are unchanged (`meta_modified` stamps and `meta_version`), so a cached list or form costs
// no meta request; otherwise `getdoctype(cached_timestamp)` answers "use_cache" or a new bundle.
// Loading a bundle also adds its translations (`__messages`) and, for forms and lists, loads the
// doctype's scripts (`__js_url`, `__list_js_url`) as <script> elements (the CSP runs no script text);
// the user's list settings that come with a bundle go to user_settings.js.
import { call } from "./api.js";
import { boot } from "./boot.js";
import { addMessages } from "./i18n.js";
import { locals } from "./model.js";
import { rememberUserSettings } from "./user_settings.js";

const memory = new Map(); // doctype → meta
const loading = new Map(); // doctype → Promise of its bundle
const scripts = new Map(); // url → Promise
const STORE_PREFIX = "fw:meta:";

function storeKey(doctype) {
	return `${STORE_PREFIX}${boot.lang || "en"}:${doctype}`;
}

function readStored(doctype) {
	try {
		const raw = localStorage.getItem(storeKey(doctype));
		return raw ? JSON.parse(raw) : null;
	} catch {
		return null;
	}
}

function writeStored(doctype, docs) {
	try {
		localStorage.setItem(storeKey(doctype), JSON.stringify({ version: boot.meta_version, docs }));
	} catch {
		// storage full or disabled: the memory cache still works
	}
}

/** Whether a stored bundle is still what the server has (every doctype in it unchanged). */
function isCurrent(entry) {
	if (!entry || !Array.isArray(entry.docs) || !entry.docs.length || entry.version !== boot.meta_version) return false;
	const stamps = boot.meta_modified || {};
	return entry.docs.every((doc) => doc.modified && stamps[doc.name] === doc.modified);
}

function remember(docs) {
	for (const doc of docs) {
		memory.set(doc.name, doc);
		(locals.DocType ||= {})[doc.name] = doc;
		addMessages(doc.__messages);
	}
	return docs;
}

async function fetchBundle(doctype) {
	const stored = readStored(doctype);
	if (isCurrent(stored)) return remember(stored.docs);
	const args = { doctype };
	if (stored && stored.docs && stored.docs[0] && stored.docs[0].modified) {
		args.cached_timestamp = stored.docs[0].modified;
	}
	const body = await call("fw.desk.form.load.getdoctype", args, { httpMethod: "GET" });
	const docs = body.message === "use_cache" && stored ? stored.docs : body.docs || [];
	if (body.user_settings !== undefined) rememberUserSettings(doctype, body.user_settings);
	if (docs[0] && docs[0].modified) writeStored(doctype, docs);
	return remember(docs);
}

/** The meta of `doctype` (with its child tables' metas loaded too). */
export async function getMeta(doctype) {
	if (memory.has(doctype)) return memory.get(doctype);
	if (!loading.has(doctype)) {
		loading.set(
			doctype,
			fetchBundle(doctype).finally(() => loading.delete(doctype)),
		);
	}
	await loading.get(doctype);
	const meta = memory.get(doctype);
	if (!meta) throw new Error(`no meta for ${doctype}`);
	return meta;
}

/** The meta of a doctype already loaded (a child table of a loaded form), or null. */
export function cachedMeta(doctype) {
	return memory.get(doctype) || null;
}

/** Forget every cached meta (after a change the boot does not know of). */
export function clearMetaCache() {
	memory.clear();
	for (let i = localStorage.length - 1; i >= 0; i--) {
		const key = localStorage.key(i);
		if (key && key.startsWith(STORE_PREFIX)) localStorage.removeItem(key);
	}
}

/** Load a script once (by URL); resolves when it ran. */
export function loadScript(url) {
	if (!scripts.has(url)) {
		scripts.set(
			url,
			new Promise((resolve, reject) => {
				const element = document.createElement("script");
				element.src = url;
				element.async = false;
				element.onload = () => resolve();
				element.onerror = () => {
					scripts.delete(url);
					reject(new Error(`could not load ${url}`));
				};
				document.head.append(element);
			}),
		);
	}
	return scripts.get(url);
}

/** Run the form scripts of a doctype and of its child tables (`__js_url`), once each. */
export async function loadFormScripts(meta) {
	const urls = [meta, ...childMetas(meta)].map((m) => m.__js_url).filter(Boolean);
	for (const url of urls) await loadScript(url).catch((error) => console.error(error));
}

/** Run the list script of a doctype (`__list_js_url`), once. */
export async function loadListScript(meta) {
	if (meta.__list_js_url) await loadScript(meta.__list_js_url).catch((error) => console.error(error));
}

/** The metas of the doctype's child tables (loaded with it). */
export function childMetas(meta) {
	return (meta.fields || [])
		.filter((df) => df.fieldtype === "Table" || df.fieldtype === "Table MultiSelect")
		.map((df) => memory.get(df.options))
		.filter(Boolean);
}

/** The DocField of `fieldname`, or null. */
export function getField(meta, fieldname) {
	return (meta.fields || []).find((df) => df.fieldname === fieldname) || null;
}

/** The label to show for a field (translated by the caller). */
export function fieldLabel(df) {
	return df.label || String(df.fieldname || "").replace(/_/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());
}
