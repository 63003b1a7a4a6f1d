// `__()` (server/desk/static/js/i18n.js): translations, contexts, {0} placeholders.
import assert from "node:assert/strict";
import test from "node:test";
import { __, addMessages, format } from "../../../server/desk/static/js/i18n.js";

test("translates, then fills placeholders", () => {
	addMessages({ Save: "Speichern", "Add {0}": "{0} hinzufügen", "Open:verb": "Öffnen" });
	assert.equal(__("Save"), "Speichern");
	assert.equal(__("Add {0}", ["Verstoß"]), "Verstoß hinzufügen");
	assert.equal(__("Open", null, "verb"), "Öffnen");
	assert.equal(__("Open"), "Open"); // no context-free row
	assert.equal(__("Untranslated {0} of {1}", [1, 2]), "Untranslated 1 of 2");
	assert.equal(__("{0} and {0}", "x"), "x and x"); // a single value as the only argument
	assert.equal(__("{1} missing", ["a"]), "{1} missing");
	assert.equal(__(null), "");
	assert.equal(format("<b>{0}</b>", ["<i>"]), "<b><i></b>"); // text in, text out: rendering keeps it text
});
