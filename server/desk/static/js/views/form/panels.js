// Parts of a form that belong to one doctype (a core doctype's own tools, below its fields), loaded
// on first use: the Data Import form's preview, mapping, progress and log (views/data_import/).
import { html, useEffect, useState } from "../../lib/html.js";

const PANELS = {
	"Data Import": () => import("../data_import/panel.js"),
};

export function FormPanel({ frm }) {
	const load = PANELS[frm.doctype];
	const [module, setModule] = useState(null);
	useEffect(() => {
		let cancelled = false;
		if (load) load().then((loaded) => !cancelled && setModule(() => loaded.default));
		return () => {
			cancelled = true;
		};
	}, [frm.doctype]);
	if (!load || !module) return null;
	const Panel = module;
	return html`<${Panel} frm=${frm} />`;
}
