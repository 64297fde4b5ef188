import { useQuery } from '@tanstack/react-query';
import { useDeferredValue, useState } from 'react';
import { Link } from 'react-router';
import { Empty, ErrorNotice } from '../components/ErrorNotice';
import { FilterSelect } from '../components/FilterSelect';
import { Rating } from '../components/Rating';
import { unitPrice } from '../format';
import { useSession } from '../session';

interface Filters {
  category: string;
  capability: string;
  provider: string;
  q: string;
}

/** The models this key may see, as in GET /v1/catalog/models with the key, filtered on the server. */
export function CatalogPage() {
  const { client } = useSession();
  const [filters, setFilters] = useState<Filters>({ category: '', capability: '', provider: '', q: '' });
  const deferred = useDeferredValue(filters);
  const query = Object.fromEntries(Object.entries(deferred).filter(([, v]) => v !== ''));

  const models = useQuery({
    queryKey: ['catalog-models', query],
    queryFn: ({ signal }) => client.catalogModels(query, { signal }),
  });
  const providers = useQuery({
    queryKey: ['catalog-providers'],
    queryFn: ({ signal }) => client.catalogProviders({ signal }),
    staleTime: 300_000,
  });
  const categories = useQuery({
    queryKey: ['catalog-categories'],
    queryFn: ({ signal }) => client.catalogCategories({ signal }),
    staleTime: 300_000,
  });
  const groups = useQuery({
    queryKey: ['catalog-capability-groups'],
    queryFn: ({ signal }) => client.capabilityGroups({ signal }),
    staleTime: 300_000,
  });

  const colorOf = new Map((providers.data ?? []).map((p) => [p.id, p.color]));
  const set = (key: keyof Filters) => (value: string) => setFilters((f) => ({ ...f, [key]: value }));

  return (
    <div className="page">
      <h1>Models</h1>
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search
          <input type="search" value={filters.q} onChange={(e) => set('q')(e.target.value)} placeholder="name, tag, description" maxLength={200} />
        </label>
        <FilterSelect
          label="Category"
          value={filters.category}
          onChange={set('category')}
          options={(categories.data ?? []).map((c) => ({ value: c.id, label: c.name }))}
        />
        <FilterSelect
          label="Capability"
          value={filters.capability}
          onChange={set('capability')}
          options={(groups.data ?? []).map((g) => ({ value: g.id, label: g.displayName }))}
        />
        <FilterSelect
          label="Provider"
          value={filters.provider}
          onChange={set('provider')}
          options={(providers.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
        />
      </form>

      {models.error ? (
        <ErrorNotice error={models.error} context="Loading the models" />
      ) : models.isPending ? (
        <p aria-busy="true">Loading models…</p>
      ) : models.data.length === 0 ? (
        <Empty>No model matches these filters.</Empty>
      ) : (
        <ul className="cards" aria-label="Models">
          {models.data.map((m) => (
            <li key={m.slug} className="card" style={{ '--provider-color': colorOf.get(m.provider.id) ?? '#64748b' } as React.CSSProperties}>
              <div className="card-head">
                <span className="provider-badge" aria-hidden="true">
                  {m.provider.name.slice(0, 1)}
                </span>
                <span className="provider-name">{m.provider.name}</span>
              </div>
              <h2>
                <Link to={`/models/${m.slug}`}>{m.name}</Link>
              </h2>
              <p className="description">{m.description}</p>
              <p className="chips">
                <span className="chip">{m.category}</span>
                <span className="chip">{m.capability}</span>
              </p>
              <p className="card-foot">
                <span className="price">{unitPrice(m.pricing)}</span>
                <Rating average={m.ratings.average} count={m.ratings.count} />
              </p>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
