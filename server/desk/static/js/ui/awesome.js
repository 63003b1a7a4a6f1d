// What the awesome bar offers for a text, from the boot alone (Frappe's awesome bar): the lists of
// the doctypes the user may read whose name or label contains the text ("Employee List"), "New
// <Doctype>" where the user may create ("new <text>" offers only those), and the reports the user
// may run; the documents found by name come from the server (awesome_bar.js). Pure: `node --test`.
import { listUrl, newFormUrl } from "../routes.js";

export const MAX_COMMANDS = 8;

function matches(text, ...candidates) {
	const needle = text.trim().toLowerCase();
	return needle !== "" && candidates.some((c) => c && String(c).toLowerCase().includes(needle));
}

/** `[{key, label, description, url}]` for `text`: lists, then new documents, then reports; `labels`
 * are the translated texts ({list(label), new(label), report: the word}). */
export function commandsFor(text, boot, { slug, labels, newWord = "new" }) {
	// "new warehouse" (or the translated word for new): only the new documents
	const prefix = `${String(newWord).toLowerCase()} `;
	if (newWord && text.trim().toLowerCase().startsWith(prefix)) {
		return commandsFor(text.trim().slice(prefix.length), boot, { slug, labels, newWord: null })
			.filter((c) => c.key.startsWith("new:"));
	}
	const out = [];
	const doctypes = Object.entries(boot.doctypes || {});
	const readable = (name) => Boolean((boot.rights || {})[name] && boot.rights[name].read);
	const creatable = (name) => Boolean((boot.rights || {})[name] && boot.rights[name].create);
	const found = doctypes.filter(([name, info]) => readable(name) && matches(text, name, info.label));
	// the closest first: a name or label that starts with the text, then the shorter one
	const needle = text.trim().toLowerCase();
	const rank = ([name, info]) => [
		!(name.toLowerCase().startsWith(needle) || String(info.label || "").toLowerCase().startsWith(needle)),
		String(info.label || name).length,
	];
	found.sort((a, b) => {
		const [x, y] = [rank(a), rank(b)];
		return Number(x[0]) - Number(y[0]) || x[1] - y[1] || a[0].localeCompare(b[0]);
	});
	for (const [name, info] of found) {
		const label = info.label || name;
		if (info.issingle) out.push({ key: `form:${name}`, label, url: listUrl(name, [], slug) });
		else out.push({ key: `list:${name}`, label: labels.list(label), url: listUrl(name, [], slug) });
	}
	for (const [name, info] of found) {
		if (!info.issingle && creatable(name)) {
			out.push({ key: `new:${name}`, label: labels.new(info.label || name), url: newFormUrl(name, slug) });
		}
	}
	for (const section of boot.sidebar || []) {
		for (const item of section.items || []) {
			if (item.type === "report" && matches(text, item.name, item.label)) {
				out.push({ key: `report:${item.name}`, label: item.label || item.name, description: labels.report, url: item.route });
			}
		}
	}
	return out.slice(0, MAX_COMMANDS);
}

/** The doctypes whose documents the bar looks for by name: those of the user's sidebar (at most `max`). */
export function searchDoctypes(boot, max = 6) {
	const out = [];
	for (const section of boot.sidebar || []) {
		for (const item of section.items || []) {
			if (item.type === "doctype" && !out.includes(item.name) && !((boot.doctypes || {})[item.name] || {}).issingle) {
				out.push(item.name);
			}
		}
	}
	return out.slice(0, max);
}
