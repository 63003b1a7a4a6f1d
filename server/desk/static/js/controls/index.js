// Every control module, imported for its registration (controls/registry.js).
import "./read_only.js";
import "./data.js";
import "./text.js";
import "./number.js";
import "./check.js";
import "./select.js";
import "./date.js";
import "./link.js";
import "./grid.js";
import "./table_multiselect.js";
import "./duration.js";
import "./rating.js";
import "./text_editor.js";
import "./attach.js";

export { controlFor, hasControl, registerControl } from "./registry.js";
