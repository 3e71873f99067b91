/**
 * A JSON string literal encoded the way Go's encoding/json writes it (Terraform writes state with
 * it): like JSON.stringify, plus `<`, `>`, `&`, U+2028 and U+2029 as \u escapes. A token spliced
 * into a state then looks exactly as Terraform itself would have written it.
 */
export function goJsonString(value: string): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
