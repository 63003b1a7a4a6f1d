// Read Only fields, and any field type without a control of its own yet: the value as text.
import { formatValue } from "../format.js";
import { html } from "../lib/html.js";
import { ControlFrame, describedBy } from "./base.js";
import { registerControl } from "./registry.js";

export function ReadOnlyControl(props) {
	const { df, value, id, error } = props;
	const text = formatValue(value, df);
	return html`<${ControlFrame} ...${props} labelFor=${undefined}>
		<div class="control-static" id=${id} role="textbox" aria-readonly="true" aria-labelledby=${`${id}-label`}
			aria-describedby=${describedBy(id, df, error)}>${text}</div>
	</${ControlFrame}>`;
}

registerControl("Read Only", ReadOnlyControl);
