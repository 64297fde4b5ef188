/**
 * Our copy of a job's outputs stays while their delivery to the customer's bucket is pending: the retention sweep
 * deletes a job's outputs only when this holds. A fragment for a query over `jobs` aliased `j`.
 */
import { Prisma } from '@prisma/client';

export const NOT_AWAITING_DELIVERY = Prisma.sql`NOT EXISTS (SELECT 1 FROM job_deliveries d WHERE d.job_id = j.id AND d.status = 'pending')`;
