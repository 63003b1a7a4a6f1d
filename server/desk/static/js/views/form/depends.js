// Field-rule expressions (desk.md §4: `depends_on`, `mandatory_depends_on`, `read_only_depends_on`)
// evaluated without `eval` or a Function constructor (the CSP refuses both, and a doctype's meta must not run
// code). A rule is a field name ("employee": true when that field has a value) or `eval:` followed by
// the small part of JavaScript apps write:
//   doc.<field>, parent.<field>, doc["field"], literals ("text", 'text', 12, 1.5, true, false, null,
//   undefined, [list]), comparisons (== === != !== < > <= >=), && || !, parentheses, `x in [list]`,
//   `in_list([list], x)`, `[list].includes(x)`, `"text".includes(x)`, `.length`.
// Pure: `node --test` covers it.

const TOKEN = /\s*(?:(\d+(?:\.\d+)?)|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(===|!==|==|!=|<=|>=|&&|\|\||[<>!()[\].,])|([A-Za-z_$][\w$]*))/y;

export class ExpressionError extends Error {}

function unquote(text) {
	return text.slice(1, -1).replace(/\\(.)/g, (_, c) => ({ n: "\n", t: "\t" })[c] ?? c);
}

/** The tokens of an expression: {kind: "num"|"str"|"op"|"name", value}. */
export function tokenize(source) {
	const tokens = [];
	TOKEN.lastIndex = 0;
	let index = 0;
	const text = String(source);
	while (index < text.length) {
		if (/^\s*$/.test(text.slice(index))) break;
		TOKEN.lastIndex = index;
		const match = TOKEN.exec(text);
		if (!match) throw new ExpressionError(`unexpected text at ${index}: ${text.slice(index, index + 12)}`);
		index = TOKEN.lastIndex;
		if (match[1] !== undefined) tokens.push({ kind: "num", value: Number(match[1]) });
		else if (match[2] !== undefined) tokens.push({ kind: "str", value: unquote(match[2]) });
		else if (match[3] !== undefined) tokens.push({ kind: "op", value: match[3] });
		else tokens.push({ kind: "name", value: match[4] });
	}
	return tokens;
}

const LITERALS = { true: true, false: false, null: null, undefined: undefined };

/** Parse an expression into a tree (nodes are plain objects); an ExpressionError when it cannot. */
export function parse(source) {
	const tokens = tokenize(source);
	let position = 0;
	const peek = () => tokens[position];
	const isOp = (value) => peek() && peek().kind === "op" && peek().value === value;
	const isName = (value) => peek() && peek().kind === "name" && peek().value === value;
	const expect = (value) => {
		if (!isOp(value)) throw new ExpressionError(`expected ${value}`);
		position += 1;
	};

	function list() {
		const items = [];
		if (!isOp("]")) {
			items.push(or());
			while (isOp(",")) {
				position += 1;
				if (isOp("]")) break;
				items.push(or());
			}
		}
		expect("]");
		return { type: "list", items };
	}

	function primary() {
		const token = peek();
		if (!token) throw new ExpressionError("unexpected end");
		position += 1;
		if (token.kind === "num" || token.kind === "str") return { type: "lit", value: token.value };
		if (token.kind === "op" && token.value === "(") {
			const inner = or();
			expect(")");
			return inner;
		}
		if (token.kind === "op" && token.value === "[") return list();
		if (token.kind === "name") {
			if (token.value in LITERALS) return { type: "lit", value: LITERALS[token.value] };
			if (token.value === "in_list" && isOp("(")) {
				position += 1;
				const haystack = or();
				expect(",");
				const needle = or();
				expect(")");
				return { type: "in", needle, haystack };
			}
			return { type: "var", name: token.value };
		}
		throw new ExpressionError(`unexpected ${token.value}`);
	}

	function member() {
		let node = primary();
		for (;;) {
			if (isOp(".")) {
				position += 1;
				const name = peek();
				if (!name || name.kind !== "name") throw new ExpressionError("expected a name after .");
				position += 1;
				if (name.value === "includes" && isOp("(")) {
					position += 1;
					const needle = or();
					expect(")");
					node = { type: "in", needle, haystack: node };
				} else {
					node = { type: "get", object: node, key: { type: "lit", value: name.value } };
				}
			} else if (isOp("[")) {
				position += 1;
				const key = or();
				expect("]");
				node = { type: "get", object: node, key };
			} else {
				return node;
			}
		}
	}

	function unary() {
		if (isOp("!")) {
			position += 1;
			return { type: "not", operand: unary() };
		}
		return member();
	}

	function comparison() {
		let node = unary();
		for (;;) {
			const token = peek();
			if (token && token.kind === "op" && ["==", "===", "!=", "!==", "<", ">", "<=", ">="].includes(token.value)) {
				position += 1;
				node = { type: "cmp", op: token.value, left: node, right: unary() };
			} else if (isName("in")) {
				position += 1;
				node = { type: "in", needle: node, haystack: unary() };
			} else {
				return node;
			}
		}
	}

	function and() {
		let node = comparison();
		while (isOp("&&")) {
			position += 1;
			node = { type: "and", left: node, right: comparison() };
		}
		return node;
	}

	function or() {
		let node = and();
		while (isOp("||")) {
			position += 1;
			node = { type: "or", left: node, right: and() };
		}
		return node;
	}

	const tree = or();
	if (position < tokens.length) throw new ExpressionError(`unexpected ${tokens[position].value}`);
	return tree;
}

function looseEqual(a, b) {
	if (a === b) return true;
	if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
	if (a === null || a === undefined || b === null || b === undefined) return false;
	if (typeof a === "number" || typeof b === "number") return Number(a) === Number(b);
	return String(a) === String(b);
}

function compare(op, a, b) {
	switch (op) {
		case "==":
			return looseEqual(a, b);
		case "!=":
			return !looseEqual(a, b);
		case "===":
			return a === b;
		case "!==":
			return a !== b;
		default: {
			if (a === null || a === undefined || b === null || b === undefined) return false;
			const [x, y] = typeof a === "number" || typeof b === "number" ? [Number(a), Number(b)] : [a, b];
			if (op === "<") return x < y;
			if (op === ">") return x > y;
			if (op === "<=") return x <= y;
			return x >= y;
		}
	}
}

function get(object, key) {
	if (object === null || object === undefined) return undefined;
	if (key === "length" && (typeof object === "string" || Array.isArray(object))) return object.length;
	if (typeof object !== "object" || !Object.prototype.hasOwnProperty.call(object, key)) return undefined;
	return object[key];
}

/** Evaluate a parsed tree with `scope` ({doc, parent, ...}): only data, never code. */
export function evaluate(node, scope) {
	switch (node.type) {
		case "lit":
			return node.value;
		case "list":
			return node.items.map((item) => evaluate(item, scope));
		case "var":
			return Object.prototype.hasOwnProperty.call(scope, node.name) ? scope[node.name] : undefined;
		case "get":
			return get(evaluate(node.object, scope), String(evaluate(node.key, scope)));
		case "not":
			return !evaluate(node.operand, scope);
		case "and":
			return evaluate(node.left, scope) && evaluate(node.right, scope);
		case "or":
			return evaluate(node.left, scope) || evaluate(node.right, scope);
		case "cmp":
			return compare(node.op, evaluate(node.left, scope), evaluate(node.right, scope));
		case "in": {
			const haystack = evaluate(node.haystack, scope);
			const needle = evaluate(node.needle, scope);
			if (Array.isArray(haystack)) return haystack.some((item) => looseEqual(item, needle));
			if (typeof haystack === "string") return needle !== null && needle !== undefined && haystack.includes(String(needle));
			if (haystack && typeof haystack === "object") return Object.prototype.hasOwnProperty.call(haystack, String(needle));
			return false;
		}
		default:
			throw new ExpressionError(`unknown node ${node.type}`);
	}
}

/** Frappe's truthiness of a field's value (an empty table is false). */
export function truthy(value) {
	if (Array.isArray(value)) return value.length > 0;
	return Boolean(value);
}

const cache = new Map();

/**
 * Whether a rule holds for `doc` (`parent`: the parent document of a child row). An empty rule is
 * `fallback`; so is a rule that cannot be parsed (reported once in the console).
 */
export function ruleHolds(rule, { doc = {}, parent = null } = {}, fallback = true) {
	const text = String(rule ?? "").trim();
	if (!text) return fallback;
	if (!text.startsWith("eval:")) return truthy(doc[text]);
	let tree = cache.get(text);
	if (tree === undefined) {
		try {
			tree = parse(text.slice(5));
		} catch (error) {
			console.error(`cannot evaluate the rule ${text}: ${error.message}`);
			tree = null;
		}
		cache.set(text, tree);
	}
	if (tree === null) return fallback;
	try {
		return truthy(evaluate(tree, { doc, parent: parent || {} }));
	} catch {
		return fallback;
	}
}
