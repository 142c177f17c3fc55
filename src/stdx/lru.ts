/**
 * A map that forgets its least recently used entry beyond `max`: a Map keeps insertion order, so
 * a read moves its entry to the end and the first one is the least recently used.
 */
export class Lru<V> {
  private readonly map = new Map<string, V>()
  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    const value = this.map.get(key)
    if (value !== undefined) {
      this.map.delete(key)
      this.map.set(key, value)
    }
    return value
  }

  set(key: string, value: V): void {
    this.map.delete(key)
    this.map.set(key, value)
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!)
  }

  delete(key: string): void {
    this.map.delete(key)
  }

  get size(): number {
    return this.map.size
  }
}
