// The explorers' texts filled in the browser. The sentences themselves are written once, in
// Python (attnlib/widgets/_text.py, TEXTS), and arrive with a sentence's data; this module
// only knows how to fill a template and the few number formats a template may ask for.

const FIELD = /\{(\w+)(?::(\w+))?\}/g;

/** Four decimals, as Python's f"{x:.4f}" but zero never signed; a masked score is "-inf". */
export function fixed(x) {
  if (x === -Infinity) return "-inf";
  const text = x.toFixed(4);
  return text === "-0.0000" ? "0.0000" : text;
}

/** Up to four decimals, at least two: 0.55 -> "0.55", 0.1385 -> "0.1385". */
function short(x) {
  const [whole, frac] = fixed(x).split(".");
  return `${whole}.${frac.replace(/0+$/, "").padEnd(2, "0")}`;
}

const SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹";
const SUBSCRIPT = "₀₁₂₃₄₅₆₇₈₉";
const digits = (n, set) => String(n).replace(/\d/g, (d) => set[d]);

/** A sum of weights: "1.0000" within 1e-4 of 1 (as _text.total), else four decimals. */
export function total(x) {
  return Math.abs(x - 1) <= 1e-4 ? "1.0000" : fixed(x);
}

/** The number formats of _text.SPECS, by the same names. */
export const SPECS = {
  f4: fixed,
  // The book counts tokens from 1: Python's index 1 is x⁽²⁾, its weights α₂,ⱼ.
  book: (i) => `⁽${digits(i + 1, SUPERSCRIPT)}⁾`,
  sub: (i) => digits(i + 1, SUBSCRIPT),
  // Heads and blocks are counted from 1 in words ("head 1 of 4"), as tokens are.
  one: (i) => String(i + 1),
  sum: total,
  factor: (x) => (x < 0 ? `(${short(x)})` : short(x)),
  // Python's f"{x:g}" for the temperatures a slider gives: 1.0 -> "1", 0.30000000000000004 -> "0.3".
  g: (x) => String(Number(x.toPrecision(6))),
  f2: (x) => x.toFixed(2),
  row: (xs) => xs.map((x) => x.toFixed(2)).join(" "),
  vec: (xs) => `[${xs.map(fixed).join(", ")}]`,
  span: (xs) => `from ${fixed(Math.min(...xs))} to ${fixed(Math.max(...xs))}`,
};

/** `template` with each {name} / {name:spec} replaced by fields[name]. */
export function fill(template, fields) {
  return template.replace(FIELD, (_, name, spec) =>
    spec ? SPECS[spec](fields[name]) : String(fields[name]),
  );
}

/** The parts [when, template] whose flags hold ("a !b": a set and b not), filled and joined. */
export function compose(parts, fields, flags) {
  const holds = (when) =>
    when
      .split(" ")
      .filter(Boolean)
      .every((w) => (w.startsWith("!") ? !flags[w.slice(1)] : flags[w]));
  return parts
    .filter(([when]) => holds(when))
    .map(([, template]) => fill(template, fields))
    .join("");
}

/** "0.1385·x⁽¹⁾ + 0.2379·x⁽²⁾ + ...": the blend that makes a context vector. */
export function terms(texts, weights, tokens, vec) {
  return weights.map((w, j) => fill(texts.term, { w, vec, j, token: tokens[j] })).join(texts.plus);
}
