// Rating: stars as a group of radio buttons named "1 star" ... "5 stars" (the field's `options` may
// set how many). The value is stored as a fraction of the whole, as Frappe does (3 of 5 stars: 0.6);
// choosing the current star again clears it.
import { __ } from "../i18n.js";
import { html } from "../lib/html.js";
import { describedBy, labelOf } from "./base.js";
import { registerControl } from "./registry.js";

/** How many stars a Rating field has (its options, else 5). Pure. */
export function starCount(df) {
	const count = Number.parseInt(df.options, 10);
	return count > 0 && count <= 10 ? count : 5;
}

/** A stored value (a fraction, or an old whole number of stars) as a number of stars. Pure. */
export function starsOf(value, count) {
	const number = Number(value) || 0;
	return Math.round(number > 1 ? Math.min(number, count) : number * count);
}

export function RatingControl(props) {
	const { df, value, id, readOnly, error, onChange } = props;
	const count = starCount(df);
	const current = starsOf(value, count);
	return html`<div class=${`control control-rating ${error ? "has-error" : ""}`} data-fieldname=${df.fieldname} data-fieldtype="Rating">
		<fieldset class="rating" id=${id} aria-describedby=${describedBy(id, df, error)} disabled=${Boolean(readOnly)}>
			<legend class="control-label" id=${`${id}-label`}>
				${labelOf(df)}${df.reqd ? html`<span class="reqd-mark" aria-hidden="true"> *</span>` : null}
			</legend>
			${Array.from({ length: count }, (_, i) => {
				const stars = i + 1;
				const name = stars === 1 ? __("1 star") : __("{0} stars", [stars]);
				return html`<label key=${stars}>
					<input type="radio" name=${`${id}-stars`} value=${stars} checked=${current === stars} aria-label=${name}
						onClick=${() => onChange(current === stars ? 0 : stars / count)} />
					<span class=${`rating-star ${stars <= current ? "on" : ""}`} aria-hidden="true">★</span>
				</label>`;
			})}
		</fieldset>
		${df.description ? html`<p id=${`${id}-description`} class="control-description">${__(df.description)}</p>` : null}
		${error ? html`<p id=${`${id}-error`} class="control-error">${error}</p>` : null}
	</div>`;
}

registerControl("Rating", RatingControl);
