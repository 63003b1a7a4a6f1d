// Controls by field type. A control is a component receiving
//   {frm, df, value, readOnly, error, id, describedBy, onInput(value), onChange(value)}
// `onInput` updates the document as the user types; `onChange` commits the value and fires the
// field's script event (as a native change event does: on blur, Enter, or a choice).
// Add a control: write controls/<family>.js calling `registerControl([...fieldtypes], Component)`
// and import it in controls/index.js.
const controls = new Map();

export function registerControl(fieldtypes, component) {
	for (const fieldtype of Array.isArray(fieldtypes) ? fieldtypes : [fieldtypes]) controls.set(fieldtype, component);
}

/** The control of a field type, or the read-only display for types without one yet. */
export function controlFor(fieldtype) {
	return controls.get(fieldtype) || controls.get("Read Only") || null;
}

export function hasControl(fieldtype) {
	return controls.has(fieldtype);
}
