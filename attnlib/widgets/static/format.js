// Part of the explorers' front end, joined with the other files into one ES module
// (order: attnlib/widgets/frontend.py). Numbers and names written as the Python views
// write them (attnlib/widgets/_text.py), so that both read the same.

/** `x` with four decimals, as Python's f"{x:.4f}" (masked scores are "-inf"). */
function fixed4(x) {
  if (x === -Infinity) return "-inf";
  return Object.is(x, -0) ? "-0.0000" : x.toFixed(4);
}

/** `x` with up to four decimals and at least two: 0.55 -> "0.55", 0.1385 -> "0.1385". */
function shortNumber(x) {
  const [whole, frac] = fixed4(x).split(".");
  return `${whole}.${frac.replace(/0+$/, "").padEnd(2, "0")}`;
}

/** shortNumber, parenthesised when negative: "0.5×(-0.2)" is not read as a minus. */
function factor(x) {
  return x < 0 ? `(${shortNumber(x)})` : shortNumber(x);
}

/** "[0.4419, 0.6515, 0.5683]". */
function vectorText(values) {
  return `[${values.map(fixed4).join(", ")}]`;
}

/** "from 0.7287 to 1.6323": the smallest and largest of `values`. */
function spanText(values) {
  return `from ${fixed4(Math.min(...values))} to ${fixed4(Math.max(...values))}`;
}

/** "0.1385·x(Your) + 0.2379·x(journey) + ...": the blend that makes a context vector. */
function weightedSum(weights, tokens, vec) {
  return weights.map((w, j) => `${fixed4(w)}·${vec}(${tokens[j]})`).join(" + ");
}

/** A slider value as Python's f"{x:g}" writes it: 1.0 -> "1", 0.30000000000000004 -> "0.3". */
function general(x) {
  return String(Number(x.toPrecision(6)));
}

const ESCAPES = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** A token as Python's repr() writes it: 'journey', or "'" for a quote. */
function pyRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let body = "";
  for (const ch of text) {
    if (ch in ESCAPES) body += ESCAPES[ch];
    else if (ch === quote) body += `\\${ch}`;
    else if (ch < " " || ch === "\x7f")
      body += `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`;
    else body += ch;
  }
  return quote + body + quote;
}
