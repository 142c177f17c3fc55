/**
 * Micro-units (10^-6) as the shortest exact decimal text: 1500000 -> "1.5", -250 -> "-0.00025".
 * The one formatter of amounts: the engine's messages, the services and every face use it.
 */
export function decimalOfMicros(micros: number): string {
  const negative = micros < 0
  const digits = String(Math.abs(micros)).padStart(7, '0')
  const whole = digits.slice(0, -6)
  const fraction = digits.slice(-6).replace(/0+$/, '')
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : '.' + fraction}`
}
