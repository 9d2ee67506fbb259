// The front end's views for the cases on stdin, as JSON on stdout: for
// tests/test_frontend_node.py, which compares them with the Python views. Imports the
// ES modules themselves (static/src), not the bundle. -Infinity is written as null.
import { readFileSync } from "node:fs";
import { VIEWS } from "../attnlib/widgets/static/src/views.js";

const cases = JSON.parse(readFileSync(0, "utf8"));
const out = cases.map(({ kind, data, states }) =>
  states.map((state) => {
    const view = VIEWS[kind](data, state);
    delete view.filled; // a function: what it says is checked through the texts
    return view;
  }),
);
process.stdout.write(JSON.stringify(out, (_, v) => (v === -Infinity ? null : v)));
