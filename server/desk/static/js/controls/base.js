// What every control shares: the label (the accessible name, the translated field label), the
// required mark, the description under the field and the error shown at it (linked with
// aria-describedby, the input marked aria-invalid).
import { __ } from "../i18n.js";
import { html } from "../lib/html.js";
import { fieldLabel } from "../meta.js";

export function labelOf(df) {
	return __(fieldLabel(df));
}

/** The ids a control's input refers to (its description and its error). */
export function describedBy(id, df, error) {
	const ids = [];
	if (df.description) ids.push(`${id}-description`);
	if (error) ids.push(`${id}-error`);
	return ids.length ? ids.join(" ") : undefined;
}

/**
 * The frame of a control: `<label for=id>` (or a caption for group controls), the input (children),
 * the description and the error. `inline` puts the label after the input (Check); `hideLabel` keeps
 * it for assistive technology only (a grid's cells, under their column header).
 */
export function ControlFrame({ df, id, error, children, inline = false, labelFor = id, className = "", hideLabel = false }) {
	// in a grid's cell the column header shows the label: it stays for assistive technology only
	const label = html`<label class=${hideLabel ? "control-label sr-only" : "control-label"} id=${`${id}-label`} for=${labelFor}>
		${labelOf(df)}${df.reqd ? html`<span class="reqd-mark" aria-hidden="true"> *</span>` : null}
	</label>`;
	return html`<div class=${`control ${inline ? "control-inline" : ""} ${error ? "has-error" : ""} ${className}`} data-fieldname=${df.fieldname} data-fieldtype=${df.fieldtype}>
		${inline ? null : label}
		${children}
		${inline ? label : null}
		${df.description ? html`<p id=${`${id}-description`} class="control-description">${__(df.description)}</p>` : null}
		${error ? html`<p id=${`${id}-error`} class="control-error">${error}</p>` : null}
	</div>`;
}

/** Common attributes of an input element. */
export function inputProps({ id, df, error, readOnly }) {
	return {
		id,
		name: df.fieldname,
		"aria-required": df.reqd ? "true" : undefined,
		"aria-invalid": error ? "true" : undefined,
		"aria-describedby": describedBy(id, df, error),
		readOnly: Boolean(readOnly),
	};
}
