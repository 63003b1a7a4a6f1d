// Ask before doing something: `await confirmDialog(message)` is true for Yes, false otherwise.
// `msgprint` shows a message in a dialog.
import { __ } from "../i18n.js";
import { openDialog } from "./layers.js";

export function confirmDialog(message, { title = __("Confirm"), yes = __("Yes"), no = __("No") } = {}) {
	return new Promise((resolve) => {
		let answered = false;
		const answer = (value, handle) => {
			answered = true;
			resolve(value);
			handle.close("answer");
		};
		openDialog({
			title,
			message,
			size: "small",
			actions: [
				{ label: no, onClick: (handle) => answer(false, handle) },
				{ label: yes, primary: true, onClick: (handle) => answer(true, handle) },
			],
			onClose: () => {
				if (!answered) resolve(false);
			},
		});
	});
}

/** A message in a dialog (Frappe's msgprint): text only, with its title and indicator colour. */
export function msgprint(message, { title, indicator } = {}) {
	return openDialog({ title: title || __("Message"), message: String(message ?? ""), indicator, size: "small" });
}
