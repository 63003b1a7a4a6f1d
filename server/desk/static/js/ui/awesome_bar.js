// The awesome bar in the top bar (Frappe's): type to jump to a doctype's list, a new document, a
// report (awesome.js, from the boot), or a document found by name or title in the doctypes of the
// user's sidebar (`search_link`, under the user's rights; asked for DEBOUNCE_MS after the last key).
// An ARIA combobox: ArrowDown/ArrowUp move through the listbox's options, Enter opens the active
// one (the first when none is), Escape closes the list, then clears the text; Ctrl+G focuses the bar.
import { searchLink } from "../api.js";
import { boot, slug } from "../boot.js";
import { __ } from "../i18n.js";
import { html, useEffect, useRef, useState } from "../lib/html.js";
import { formUrl } from "../routes.js";
import { navigate } from "../router.js";
import { commandsFor, searchDoctypes } from "./awesome.js";

export const DEBOUNCE_MS = 200;
const DOCS_PER_DOCTYPE = 3;
function labels() {
	return { list: (label) => __("{0} List", [label]), new: (label) => __("New {0}", [label]), report: __("Report") };
}

function doctypeLabel(doctype) {
	return ((boot.doctypes || {})[doctype] || {}).label || doctype;
}

async function findDocuments(text, signal) {
	const found = await Promise.all(
		searchDoctypes(boot).map((doctype) =>
			searchLink(doctype, text, { pageLength: DOCS_PER_DOCTYPE, signal })
				.then((rows) => rows.map((row) => ({ doctype, row })))
				.catch(() => []),
		),
	);
	return found.flat().map(({ doctype, row }) => ({
		key: `doc:${doctype}:${row.value}`,
		label: row.label && row.label !== row.value ? `${row.label} (${row.value})` : String(row.value),
		description: doctypeLabel(doctype),
		url: formUrl(doctype, row.value, slug),
	}));
}

export function AwesomeBar() {
	const [text, setText] = useState("");
	const [docs, setDocs] = useState([]);
	const [open, setOpen] = useState(false);
	const [active, setActive] = useState(-1);
	const input = useRef(null);
	const closing = useRef(null); // the close after a blur, cancelled when the focus comes back
	const commands = text.trim() ? commandsFor(text, boot, { slug, labels: labels(), newWord: __("New") }) : [];
	const options = [...commands, ...docs];

	useEffect(() => {
		setActive(-1);
		const needle = text.trim();
		if (!needle) {
			setDocs([]);
			return undefined;
		}
		const controller = new AbortController();
		const timer = setTimeout(() => {
			findDocuments(needle, controller.signal).then((found) => !controller.signal.aborted && setDocs(found));
		}, DEBOUNCE_MS);
		return () => {
			clearTimeout(timer);
			controller.abort();
		};
	}, [text]);

	useEffect(() => {
		const shortcut = (event) => {
			if ((event.ctrlKey || event.metaKey) && (event.key === "g" || event.key === "G")) {
				event.preventDefault();
				if (input.current) input.current.focus();
			}
		};
		document.addEventListener("keydown", shortcut);
		return () => document.removeEventListener("keydown", shortcut);
	}, []);

	function go(option) {
		if (!option) return;
		setText("");
		setOpen(false);
		if (input.current) input.current.blur(); // the new page takes the focus (app.js)
		navigate(option.url);
	}

	function onKeyDown(event) {
		if (event.key === "ArrowDown" || event.key === "ArrowUp") {
			event.preventDefault();
			if (!options.length) return;
			setOpen(true);
			const step = event.key === "ArrowDown" ? 1 : -1;
			setActive((index) => (index + step + options.length + (index < 0 && step < 0 ? 1 : 0)) % options.length);
		} else if (event.key === "Enter") {
			event.preventDefault();
			go(options[active >= 0 ? active : 0]);
		} else if (event.key === "Escape") {
			event.preventDefault();
			event.stopPropagation();
			if (open && options.length) setOpen(false);
			else setText("");
		}
	}

	const expanded = open && options.length > 0;
	const optionId = (index) => `awesome-option-${index}`;
	return html`<div class="awesome-bar">
		<label class="sr-only" for="awesome-input">${__("Search or type a command")}</label>
		<input id="awesome-input" ref=${input} type="text" role="combobox" autocomplete="off" spellcheck="false"
			placeholder=${__("Search or type a command (Ctrl + G)")} aria-autocomplete="list" aria-controls="awesome-list"
			aria-expanded=${expanded ? "true" : "false"} aria-activedescendant=${expanded && active >= 0 ? optionId(active) : undefined}
			value=${text} onInput=${(e) => (setText(e.currentTarget.value), setOpen(true))} onKeyDown=${onKeyDown}
			onFocus=${() => (clearTimeout(closing.current), setOpen(true))}
			onBlur=${() => (closing.current = setTimeout(() => setOpen(false), 150))} />
		<ul id="awesome-list" role="listbox" aria-label=${__("Search results")} class="awesome-list" hidden=${!expanded}>
			${expanded
				? options.map((option, index) => html`<li key=${option.key} id=${optionId(index)} role="option"
						aria-selected=${index === active ? "true" : "false"} class=${index === active ? "active" : ""}
						onMouseDown=${(e) => e.preventDefault()} onClick=${() => go(option)}>
						<span class="awesome-label">${option.label}</span>
						${option.description ? html`<span class="awesome-description">${option.description}</span>` : null}
					</li>`)
				: null}
		</ul>
	</div>`;
}
