// Examples for the OpenAPI document, recorded from the sandbox (scripts later regenerate them).
export const invoiceExample = {};
export const invoicesExample = {};
export const batchExample = {};
export const paidInvoiceExample = {};
