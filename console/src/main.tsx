import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { AccountsPage } from './admin/AccountsPage';
import { AuditPage } from './admin/AuditPage';
import { OperatorAccountPage } from './admin/OperatorAccountPage';
import { BatchesPage } from './batches/BatchesPage';
import { BatchPage } from './batches/BatchPage';
import { Layout } from './components/Layout';
import { RouteError } from './components/ErrorNotice';
import { ClientRoute, HomeRoute, OperatorRoutes } from './components/KeyGuards';
import { AccountPage } from './pages/AccountPage';
import { CatalogPage } from './pages/CatalogPage';
import { JobPage } from './pages/JobPage';
import { JobsPage } from './pages/JobsPage';
import { ModelPage } from './pages/ModelPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { VerifyPage } from './pages/VerifyPage';
import { SessionProvider } from './session';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    // The SDK already retries where that is safe; a second layer would only delay error messages.
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 10_000 },
  },
});

const router = createBrowserRouter(
  [
    {
      element: <Layout />,
      errorElement: <RouteError />,
      children: [
        { index: true, element: <HomeRoute><CatalogPage /></HomeRoute> },
        { path: 'models/*', element: <ClientRoute><ModelPage /></ClientRoute> },
        { path: 'jobs', element: <ClientRoute><JobsPage /></ClientRoute> },
        { path: 'jobs/:jobId', element: <ClientRoute><JobPage /></ClientRoute> },
        { path: 'batches', element: <ClientRoute><BatchesPage /></ClientRoute> },
        { path: 'batches/:batchId', element: <ClientRoute><BatchPage /></ClientRoute> },
        { path: 'account', element: <ClientRoute><AccountPage /></ClientRoute> },
        { path: 'verify', element: <ClientRoute><VerifyPage /></ClientRoute> },
        {
          path: 'admin',
          element: <OperatorRoutes />,
          children: [
            { index: true, element: <Navigate to="accounts" replace /> },
            { path: 'accounts', element: <AccountsPage /> },
            { path: 'accounts/:accountId', element: <OperatorAccountPage /> },
            { path: 'audit', element: <AuditPage /> },
          ],
        },
        { path: '*', element: <NotFoundPage /> },
      ],
    },
  ],
  { basename: '/console' },
);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <RouterProvider router={router} />
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
