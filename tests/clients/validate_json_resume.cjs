// Validates a JSON Resume file against the official schema (@jsonresume/schema).
// usage: node validate_json_resume.cjs FILE
// Prints {"valid": bool, "errors": [...]} and exits 0 either way; exits 3 when the schema
// package cannot be found (the test then says it is not installed).
let schema;
try {
  schema = require("@jsonresume/schema");
} catch (e) {
  process.stderr.write(`@jsonresume/schema is not installed: ${e.message}\n`);
  process.exit(3);
}
const resume = JSON.parse(require("node:fs").readFileSync(process.argv[2], "utf8"));
schema.validate(resume, (errors, valid) => {
  const list = (errors || []).map((e) => ({ property: e.property, message: e.message }));
  process.stdout.write(JSON.stringify({ valid: Boolean(valid), errors: list }) + "\n");
});
