// Link: a combobox (ARIA 1.2 pattern) that asks the server as the user types
// (fw.desk.search.search_link: name, title and search fields, only what the user may read), shows
// titles in a listbox of options, and opens the linked document. Arrow keys move through the
// options, Enter takes one, Escape closes the list. A script's `frm.set_query(field, ...)` gives the
// search its filters or query. A user who may create the linked doctype is offered "Create a new
// <Doctype>" last (a quick entry dialog, controls/quick_entry.js).
import { searchLink } from "../api.js";
import { hasRight, slug } from "../boot.js";
import { __ } from "../i18n.js";
import { html, useEffect, useRef, useState } from "../lib/html.js";
import { formUrl } from "../routes.js";
import { ControlFrame, inputProps } from "./base.js";
import { quickEntry } from "./quick_entry.js";
import { registerControl } from "./registry.js";

const DEBOUNCE_MS = 200;

export function LinkControl(props) {
	const { frm, df, value, id, readOnly, onInput, onChange } = props;
	// a Dynamic Link names its doctype in another field of the document (of the row, in a grid)
	const source = props.doc || (frm && frm.doc) || {};
	const doctype = df.fieldtype === "Dynamic Link" ? source[df.options] : df.options;
	const [text, setText] = useState(value ?? "");
	const [open, setOpen] = useState(false);
	const [options, setOptions] = useState([]);
	const [active, setActive] = useState(-1);
	const [title, setTitle] = useState("");
	const timer = useRef(null);
	const request = useRef(null);
	const listId = `${id}-listbox`;

	useEffect(() => setText(value ?? ""), [value]);
	useEffect(() => () => clearTimeout(timer.current), []);

	function search(txt) {
		clearTimeout(timer.current);
		if (!doctype || readOnly) return;
		timer.current = setTimeout(async () => {
			if (request.current) request.current.abort();
			const controller = new AbortController();
			request.current = controller;
			const query = frm && frm.link_query ? frm.link_query(df.fieldname, props.cdt, props.cdn, props.table) : {};
			try {
				const found = await searchLink(doctype, txt, { filters: query.filters, query: query.query, signal: controller.signal });
				if (controller.signal.aborted) return;
				const create = !df.no_create && hasRight(doctype, "create")
					? [{ create: true, value: "", label: __("Create a new {0}", [__(doctype)]) }]
					: [];
				setOptions([...found, ...create]);
				setActive(found.length || create.length ? 0 : -1);
				setOpen(true);
			} catch (error) {
				if (error.name !== "AbortError") {
					setOptions([]);
					setOpen(false);
				}
			}
		}, DEBOUNCE_MS);
	}

	async function create(typed) {
		setOpen(false);
		const name = await quickEntry(doctype, typed);
		if (name) choose({ value: name, label: "" });
	}

	function choose(option) {
		if (option.create) {
			create(text).catch((error) => console.error(error));
			return;
		}
		setText(option.value);
		setTitle(option.label || "");
		setOpen(false);
		onChange(option.value);
	}

	function onKeyDown(event) {
		if (event.key === "ArrowDown") {
			event.preventDefault();
			if (!open) search(text);
			else setActive((active + 1) % Math.max(options.length, 1));
		} else if (event.key === "ArrowUp" && open) {
			event.preventDefault();
			setActive((active - 1 + options.length) % Math.max(options.length, 1));
		} else if (event.key === "Enter" && open && options[active]) {
			event.preventDefault();
			choose(options[active]);
		} else if (event.key === "Escape" && open) {
			event.preventDefault();
			event.stopPropagation();
			setOpen(false);
		}
	}

	const attrs = inputProps(props);
	const current = value ? String(value) : "";
	return html`<${ControlFrame} ...${props} className="control-link">
		<div class="link-field">
			<input class="form-input" type="text" role="combobox" autocomplete="off" ...${attrs}
				aria-autocomplete="list" aria-expanded=${open ? "true" : "false"} aria-controls=${listId}
				aria-activedescendant=${open && active >= 0 ? `${listId}-${active}` : undefined}
				value=${text}
				onInput=${(e) => {
					const next = e.currentTarget.value;
					setText(next);
					setTitle("");
					onInput(next || null);
					search(next);
				}}
				onFocus=${() => !readOnly && search(text)}
				onBlur=${() => setTimeout(() => setOpen(false), 150)}
				onChange=${(e) => !open && onChange(e.currentTarget.value || null)}
				onKeyDown=${readOnly ? undefined : onKeyDown} />
			${current && doctype
				? html`<a class="link-open" href=${formUrl(doctype, current, slug)} aria-label=${__("Open {0} {1}", [__(doctype), current])}>→</a>`
				: null}
			<ul id=${listId} class="link-options" role="listbox" aria-label=${__(doctype)} hidden=${!open || readOnly}>
				${options.length
					? options.map(
							(option, index) => html`<li id=${`${listId}-${index}`} role="option" class=${`link-option ${index === active ? "active" : ""}`}
								aria-selected=${index === active ? "true" : "false"}
								onMouseDown=${(e) => {
									e.preventDefault();
									choose(option);
								}}>
								<span class="link-option-label">${option.label || option.value}</span>
								${option.label && option.value && option.label !== option.value ? html`<span class="link-option-value">${option.value}</span>` : null}
								${option.description ? html`<span class="link-option-description">${option.description}</span>` : null}
							</li>`,
						)
					: html`<li class="link-empty" role="option" aria-disabled="true" aria-selected="false">${__("No results")}</li>`}
			</ul>
		</div>
		${title ? html`<p class="link-title">${title}</p>` : null}
	</${ControlFrame}>`;
}

registerControl(["Link", "Dynamic Link"], LinkControl);
