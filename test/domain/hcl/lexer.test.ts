import fc from 'fast-check';
import { HclSyntaxError, lexHcl } from '../../../src/domain/hcl/lexer';
import { propertyRuns } from '../../harness/property-runs';

describe('lexHcl', () => {
  test('every byte of any input lands in exactly one token, in order (or the input is rejected)', () => {
    const pieces = fc.constantFrom(
      'resource', ' ', '\t', '\n', '\r\n', '"', '${', '%{', '}', '{', '$${', '\\"', '#', '//', '/*', '*/', '<<EOT\n', '<<-EOT\n', 'EOT', '  EOT',
      'kubernetes_pod', '.', 'p', '[0]', '=', 'x', '\uFEFF', 'é', ':', '?',
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 40 }), (parts) => {
        const source = parts.join('');
        let tokens;
        try {
          tokens = lexHcl(source, 'f.tf');
        } catch (e) {
          expect(e).toBeInstanceOf(HclSyntaxError);
          return;
        }
        expect(tokens.map((t) => t.text).join('')).toBe(source);
        tokens.forEach((t, i) => expect(t.start).toBe(i === 0 ? 0 : tokens[i - 1].end));
      }),
      { numRuns: propertyRuns(2000) },
    );
  });

  test('an identifier in a string, a comment or an escaped interpolation is not an identifier token', () => {
    const source = '"kubernetes_pod.a" # kubernetes_pod.b\n"$${kubernetes_pod.c}" /* kubernetes_pod.d */ "${kubernetes_pod.e}"';
    const idents = lexHcl(source, 'f.tf').filter((t) => t.kind === 'ident').map((t) => t.text);
    expect(idents).toEqual(['kubernetes_pod', 'e']);
  });

  test('a heredoc ends only at a line holding just its marker, and its line numbers stay right', () => {
    const source = 'a = <<-EOT\n  EOT=1 ${x}\n  not EOT\n  EOT\nb = kubernetes_pod.p.id\n';
    const tokens = lexHcl(source, 'f.tf');
    const close = tokens.find((t) => t.kind === 'heredocClose')!;
    expect(close.line).toBe(4);
    expect(tokens.find((t) => t.text === 'kubernetes_pod')!.line).toBe(5);
  });

  test('a `}` inside an interpolation closes only its own braces', () => {
    const source = 'v = "${ { a = "}" }.a } tail ${kubernetes_pod.p.id}"';
    const idents = lexHcl(source, 'f.tf').filter((t) => t.kind === 'ident').map((t) => t.text);
    expect(idents).toEqual(['v', 'a', 'a', 'kubernetes_pod', 'p', 'id']);
  });
});
