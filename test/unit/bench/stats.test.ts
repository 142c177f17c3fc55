/**
 * The growth test's level rises (bench/stats.ts medianRise): the last quarter's median over the
 * second quarter's, and over the third quarter's, each untouched by a single spike or dip in a quarter.
 */
import t from 'tap'
import { medianRise } from '../../../bench/stats.js'

t.test('a fill that ends in the second quarter moves the rise from it, not the late rise', async (t) => {
  // Forty samples: 100 for the first quarter, 130 for the second, 150 for the second half.
  const samples = [...Array<number>(10).fill(100), ...Array<number>(10).fill(130), ...Array<number>(20).fill(150)]
  t.equal(medianRise(samples), 20)
  t.equal(medianRise(samples, 2), 0)
})

t.test('growth that goes on shows in both', async (t) => {
  const samples = Array.from({ length: 40 }, (_, i) => i)
  t.equal(medianRise(samples), 20, 'two quarters apart')
  t.equal(medianRise(samples, 2), 10, 'one quarter apart')
})

t.test('a single spike in a quarter does not move its median', async (t) => {
  const samples = Array<number>(40).fill(300)
  samples[35] = 450
  samples[25] = 200
  t.equal(medianRise(samples, 2), 0)
  t.equal(medianRise([1, 2, 3], 2), 0, 'under four samples: no quarters')
})
