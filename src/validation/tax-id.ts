/**
 * Brazilian taxpayer numbers, as Asaas requires of every payer (API.md section 11): a
 * CPF (11 digits) or a CNPJ (14), punctuation allowed, both check digits verified. A
 * number of one repeated digit passes the arithmetic and is refused, as the Receita does.
 */
export function brazilianTaxId(text: string): string | undefined {
  if (!/^[\d.\-/\s]{11,20}$/.test(text)) return undefined;
  const digits = text.replace(/\D/g, '');
  if (/^(\d)\1*$/.test(digits)) return undefined;
  const d = [...digits].map(Number);
  const check = (weights: number[]) => {
    const sum = weights.reduce((total, w, k) => total + w * d[k]!, 0);
    const rest = sum % 11;
    return rest < 2 ? 0 : 11 - rest;
  };
  if (digits.length === 11) {
    const first = check([10, 9, 8, 7, 6, 5, 4, 3, 2]);
    const second = check([11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
    return first === d[9] && second === d[10] ? digits : undefined;
  }
  if (digits.length === 14) {
    const first = check([5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
    const second = check([6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
    return first === d[12] && second === d[13] ? digits : undefined;
  }
  return undefined;
}
