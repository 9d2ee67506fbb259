// The front end's views for the cases on stdin, as JSON on stdout: for
// tests/test_frontend_node.py, which compares them with the Python views. Imports the
// ES modules themselves (static/src), not the bundle. -Infinity is written as null.
// A state with a `cell` ([i, j]) also gets the formula about that cell, as text (`math`).
import { readFileSync } from "node:fs";
import { mathText, mathView } from "../attnlib/widgets/static/src/formulas.js";
import { VIEWS } from "../attnlib/widgets/static/src/views.js";

const cases = JSON.parse(readFileSync(0, "utf8"));
const out = cases.map(({ kind, data, states }) =>
  states.map((state) => {
    const view = VIEWS[kind](data, state);
    const math = state.cell ? mathView(kind, data, view, state, state.cell).map(mathText) : null;
    // Functions (a view's `filled`, `how`): what they say is checked through the texts.
    return { ...view, filled: undefined, how: undefined, math };
  }),
);
process.stdout.write(JSON.stringify(out, (_, v) => (v === -Infinity ? null : v)));
