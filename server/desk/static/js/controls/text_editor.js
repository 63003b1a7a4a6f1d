// Text Editor (and HTML Editor): the HTML source in a <textarea>, and below it the text as the Desk
// shows it, sanitised (controls/sanitize.js: allowed tags only, no script, no unsafe links). Read-
// only, only the sanitised rendering is shown. The stored value is what was typed; every place that
// shows it sanitises it again.
import { __ } from "../i18n.js";
import { html } from "../lib/html.js";
import { ControlFrame, describedBy, inputProps } from "./base.js";
import { registerControl } from "./registry.js";
import { renderSanitized, sanitize } from "./sanitize.js";

export function TextEditorControl(props) {
	const { value, id, error, df, readOnly, onInput, onChange } = props;
	const text = value === null || value === undefined ? "" : String(value);
	const rendered = text ? renderSanitized(sanitize(text)) : null;
	if (readOnly) {
		return html`<${ControlFrame} ...${props} labelFor=${undefined}>
			<div class="control-static text-editor-view" id=${id} role="document" aria-labelledby=${`${id}-label`}
				aria-describedby=${describedBy(id, df, error)}>${rendered}</div>
		</${ControlFrame}>`;
	}
	return html`<${ControlFrame} ...${props}>
		<textarea class="form-input" rows="8" ...${inputProps(props)} value=${text}
			onInput=${(e) => onInput(e.currentTarget.value)} onChange=${(e) => onChange(e.currentTarget.value)}></textarea>
		${rendered
			? html`<div class="text-editor-preview" role="region" aria-label=${__("Preview")}>${rendered}</div>`
			: null}
	</${ControlFrame}>`;
}

registerControl(["Text Editor", "HTML Editor"], TextEditorControl);
