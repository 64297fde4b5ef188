import { formatDollars, GenmediaError, type CostEstimate } from '@genmedia/client';
import { ErrorNotice } from '../components/ErrorNotice';

const COMPONENT_LABELS: Record<string, string> = {
  base: 'Base price',
  quantity_multiplier: 'Quantity',
  duration_multiplier: 'Duration',
  discount: 'Discount',
};

/** The live price: what a submit of the form as it is now would charge, with the breakdown and discount. */
export function EstimatePanel({ estimate, error, stale, missing }: { estimate?: CostEstimate; error: unknown; stale: boolean; missing: number }) {
  const inputProblem = error instanceof GenmediaError && (error.code === 'INVALID_INPUT' || error.code === 'VALIDATION_ERROR');
  return (
    <section className="estimate" aria-labelledby="estimate-title" aria-live="polite" aria-busy={stale}>
      <h3 id="estimate-title">Price</h3>
      {error && !inputProblem ? <ErrorNotice error={error} context="Estimate" /> : null}
      {missing > 0 && <p className="muted">Fill in the required fields (marked *) to see the price.</p>}
      {inputProblem && <p className="muted">Correct the highlighted fields to see the price.</p>}
      {estimate && !error && (
        <>
          <p className="total" data-testid="estimate-total">
            {formatDollars(estimate.estimatedCostMicroCents)}
          </p>
          <table className="breakdown">
            <tbody>
              {estimate.breakdown.map((line) => (
                <tr key={line.component}>
                  <th scope="row">{COMPONENT_LABELS[line.component] ?? line.component.replace(/_multiplier$/, '').replace(/_/g, ' ')}</th>
                  <td>{formatDollars(line.costMicroCents)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {estimate.hasDiscount && estimate.discounted && (
            <p className="discount">
              {estimate.discounted.type} discount {estimate.discounted.percentage}%: you save {formatDollars(estimate.discounted.savedMicroCents)}
            </p>
          )}
        </>
      )}
    </section>
  );
}
