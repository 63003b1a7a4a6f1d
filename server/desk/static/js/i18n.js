// `__(text, args, context)`: the Desk's translation function (Frappe's). Messages come from the boot
// (the Desk's own strings) and from each doctype's meta (`__messages`: labels, options, workflow
// states, its scripts' strings). Placeholders are positional: `__("{0} of {1}", [1, 2])`.
const messages = Object.create(null);

/** Add `{source: translation}` (or `"source:context"` keys) to the dictionary. */
export function addMessages(dictionary) {
	if (dictionary && typeof dictionary === "object") Object.assign(messages, dictionary);
}

/** Fill `{0}`-style placeholders (after translating). */
export function format(text, args) {
	if (args === undefined || args === null) return text;
	const values = Array.isArray(args) ? args : [args];
	return text.replace(/\{(\d+)\}/g, (match, index) => (index in values ? String(values[index]) : match));
}

export function __(text, args, context) {
	const source = text === undefined || text === null ? "" : String(text);
	const translated = (context && messages[`${source}:${context}`]) || messages[source] || source;
	return format(translated, args);
}

/** Whether a translation is known for `text` (tests and the language switcher use it). */
export function hasTranslation(text) {
	return Object.prototype.hasOwnProperty.call(messages, text);
}
